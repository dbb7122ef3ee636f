// Helpers shared by the LLM policy tests: log capture, quick scripted
// exchanges, the test kernel, and fake PolicyTools (a crude text "analysis"
// and "compiler", so these tests need neither Clang nor nvcc).
#pragma once

#include <doctest/doctest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "agent/policy.h"
#include "tests/support/scripted_llm_endpoint.h"

namespace llm_test {

using nlohmann::json;

// Everything logged (at trace level) while it lives.
class LogCapture {
 public:
  LogCapture() : previous_(spdlog::default_logger()) {
    auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(stream_);
    auto logger = std::make_shared<spdlog::logger>("capture", sink);
    logger->set_level(spdlog::level::trace);
    spdlog::set_default_logger(logger);
  }
  ~LogCapture() { spdlog::set_default_logger(previous_); }
  std::string text() {
    spdlog::default_logger()->flush();
    return stream_.str();
  }

 private:
  std::ostringstream stream_;
  std::shared_ptr<spdlog::logger> previous_;
};

inline std::string fixtures() { return WARPLENS_LLM_FIXTURES; }

inline std::string scratch(const std::string& name) {
  std::string dir = std::string(WARPLENS_LLM_SCRATCH) + "/" + name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

inline std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// An exchange answering with an assistant message that calls one tool.
inline warplens::test::ScriptedExchange tool_call(const std::string& id, const std::string& name, json arguments,
                                                  json expect = json::object()) {
  return {std::move(expect),
          json{{"reply", {{"tool_calls", json::array({{{"id", id}, {"name", name}, {"arguments", arguments}}})}}}}};
}

inline warplens::test::ScriptedExchange status(int code, json body = json::object(), json headers = json::object()) {
  return {json::object(), json{{"status", code}, {"body", body}, {"headers", headers}}};
}

inline warplens::test::ScriptedExchange text_reply(const std::string& content) {
  return {json::object(), json{{"reply", {{"content", content}}}}};
}

// The kernel the episode fixtures talk about.
inline warplens::SourceFile transpose_file() {
  const std::string path = fixtures() + "/kernels/transpose.cu";
  return {path, read_text(path)};
}

// A text-level stand-in for the Clang analysis: finds `__global__ void NAME(`
// signatures and `NAME<<<...>>>` launches, and reports an uncoalesced store.
inline warplens::AnalysisResult fake_analyze(const std::string& source) {
  using namespace warplens;
  AnalysisResult r;
  r.parsed = true;
  for (std::size_t at = 0; (at = source.find("__global__ void ", at)) != std::string::npos;) {
    at += 16;
    const std::size_t open = source.find('(', at), close = source.find(')', at);
    Function f;
    f.kind = FunctionKind::Kernel;
    f.name = source.substr(at, open - at);
    std::string params = source.substr(open + 1, close - open - 1);
    f.signature = "void " + f.name + "(" + params + ")";
    std::stringstream ss(params);
    for (std::string p; std::getline(ss, p, ',');) {
      Parameter param;
      const std::size_t last = p.find_last_of(" *");
      param.type = p.substr(0, last + 1);
      param.name = p.substr(last + 1);
      f.params.push_back(param);
    }
    f.key = f.name;
    r.model.functions.push_back(f);
  }
  for (std::size_t at = 0; (at = source.find("<<<", at)) != std::string::npos;) {
    LaunchSite l;
    std::size_t name_start = source.find_last_of(" \n", at) + 1;
    l.kernel = source.substr(name_start, at - name_start);
    const std::size_t end = source.find(">>>", at);
    std::string config = source.substr(at + 3, end - at - 3);
    const std::size_t comma = config.find(',');
    l.grid.spelling = config.substr(0, comma);
    l.block.spelling = config.substr(comma + 2);
    r.model.launches.push_back(l);
    at = end;
  }
  if (source.find("out[c * rows + r]") != std::string::npos) {
    Finding f;
    f.code = codes::kUncoalescedGlobal;
    f.message = "store to out is uncoalesced: 32 sectors per request (ideal 4)";
    const std::size_t at = source.find("out[c * rows + r]");
    f.location.range.start.line = static_cast<int>(std::count(source.begin(), source.begin() + static_cast<long>(at), '\n'));
    r.findings.push_back(f);
  }
  return r;
}

// A stand-in for nvcc: TILE must be defined before it is used.
inline std::optional<std::string> fake_compile(const std::string& source) {
  const std::size_t use = source.find("TILE");
  const std::size_t def = source.find("#define TILE");
  if (use != std::string::npos && (def == std::string::npos || def > use))
    return std::string("kernel.cu(7): error: identifier \"TILE\" is undefined");
  return std::nullopt;
}

inline warplens::agent::PolicyTools fake_tools() {
  warplens::agent::PolicyTools t;
  t.analyze = fake_analyze;
  t.compile_errors = fake_compile;
  return t;
}

// One propose() round's context for the transpose kernel (the PolicyContext
// refers to these members, so keep the Round alive while it is used).
struct Round {
  warplens::SourceFile file = transpose_file();
  std::string kernel = "transpose";
  std::vector<warplens::Finding> findings;
  std::optional<warplens::agent::ProfileHints> profile;
  std::vector<warplens::agent::TriedCandidate> history;
  warplens::agent::PolicyTools tools = fake_tools();
  warplens::agent::PolicyContext context(warplens::agent::BudgetLeft left = {300, 6, 100}) {
    return warplens::agent::PolicyContext{file, kernel, findings, profile, history, left, &tools};
  }
};

}  // namespace llm_test
