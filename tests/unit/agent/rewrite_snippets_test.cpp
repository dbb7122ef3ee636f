// Data-driven tests of the Clang rewrites: every .cu file in rewrite_snippets/
// states, in its leading comments, which rewrite it exercises and what must
// happen:
//
//   // test: kernel=NAME rewrite=NAME [param=value ...]
//   // expect: applies                  or   // expect: refuses <reason substring>
//   // expect-output: <text>             (repeatable) must appear in the rewritten file
//   // expect-no-output: <text>          (repeatable) must not appear
//   // expect-launch: <text>             substring of the launch declaration
//   // expect-motivation: <text>         substring of the proposal's motivation
//
// Every rewritten output is compiled with nvcc (-arch=sm_90): a rewrite that
// produces code the real compiler rejects fails here.
#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "agent/rewrite_engine.h"

namespace fs = std::filesystem;
using namespace warplens;
using namespace warplens::agent;

namespace {

struct Snippet {
  fs::path path;
  std::string text;
  std::string kernel, rewrite;
  std::map<std::string, std::int64_t> params;
  bool applies = true;
  std::string reason;
  std::vector<std::string> outputs, not_outputs;
  std::string launch, motivation;
};

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string after(const std::string& line, const std::string& prefix) {
  std::string rest = line.substr(prefix.size());
  while (!rest.empty() && rest.front() == ' ') rest.erase(rest.begin());
  while (!rest.empty() && (rest.back() == ' ' || rest.back() == '\r')) rest.pop_back();
  return rest;
}

Snippet load(const fs::path& p) {
  Snippet s;
  s.path = p;
  s.text = read(p);
  std::istringstream lines(s.text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("// test:", 0) == 0) {
      std::istringstream words(after(line, "// test:"));
      std::string w;
      while (words >> w) {
        auto eq = w.find('=');
        if (eq == std::string::npos) continue;
        std::string k = w.substr(0, eq), v = w.substr(eq + 1);
        if (k == "kernel") s.kernel = v;
        else if (k == "rewrite") s.rewrite = v;
        else s.params[k] = std::stoll(v);
      }
    } else if (line.rfind("// expect: applies", 0) == 0) {
      s.applies = true;
    } else if (line.rfind("// expect: refuses", 0) == 0) {
      s.applies = false;
      s.reason = after(line, "// expect: refuses");
    } else if (line.rfind("// expect-output:", 0) == 0) {
      s.outputs.push_back(after(line, "// expect-output:"));
    } else if (line.rfind("// expect-no-output:", 0) == 0) {
      s.not_outputs.push_back(after(line, "// expect-no-output:"));
    } else if (line.rfind("// expect-launch:", 0) == 0) {
      s.launch = after(line, "// expect-launch:");
    } else if (line.rfind("// expect-motivation:", 0) == 0) {
      s.motivation = after(line, "// expect-motivation:");
    }
  }
  return s;
}

// nvcc -c on the rewritten text; returns the diagnostics, empty when clean.
std::string nvcc_errors(const std::string& text, const fs::path& like) {
  const std::string nvcc = WARPLENS_NVCC;
  if (nvcc.empty()) return "";
  fs::path dir = fs::temp_directory_path() / "warplens-rewrite-tests";
  fs::create_directories(dir);
  fs::path src = dir / like.filename();
  {
    std::ofstream out(src);
    out << text;
  }
  fs::path log = dir / (like.stem().string() + ".log");
  std::string cmd = nvcc + " -std=c++17 -arch=sm_90 -c -o /dev/null -I" + like.parent_path().string() + " " +
                    src.string() + " > " + log.string() + " 2>&1";
  int rc = std::system(cmd.c_str());
  if (rc == 0) return "";
  return "nvcc failed:\n" + read(log);
}

bool matches(const RewriteOption& o, const Snippet& s) {
  if (o.step.rewrite != s.rewrite) return false;
  for (const auto& [k, v] : s.params) {
    auto it = o.step.params.find(k);
    if (it == o.step.params.end() || it->second != v) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("rewrite snippets: each rewrite applies where it should, refuses where unsafe, and compiles") {
  REQUIRE(rewrite_engine_available());
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(WARPLENS_REWRITE_SNIPPETS))
    if (e.path().extension() == ".cu") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() >= 1);
  std::set<std::string> covered;
  for (const fs::path& p : files) {
    // WARPLENS_SNIPPET_FILTER=part: only the snippets whose name contains it (development).
    if (const char* only = std::getenv("WARPLENS_SNIPPET_FILTER"); only && *only &&
        p.filename().string().find(only) == std::string::npos)
      continue;
    Snippet s = load(p);
    INFO("snippet " << p.filename().string());
    REQUIRE_MESSAGE(!s.kernel.empty(), "missing `// test: kernel=... rewrite=...`");
    REQUIRE(find_rewrite(s.rewrite) != nullptr);
    covered.insert(s.rewrite);
    // The engine sees the snippet without its expectations (so they cannot
    // match themselves in the output); line numbers are kept.
    std::string code;
    {
      std::istringstream in(s.text);
      std::string line;
      while (std::getline(in, line))
        code += (line.rfind("// test:", 0) == 0 || line.rfind("// expect", 0) == 0 ? "//" : line) + "\n";
    }
    // Parsed with the front end's defaults: the snippets' directory has no
    // compile_commands.json (without this the build tree's would be found
    // upward and its nearest entry's flags borrowed).
    EngineOptions engine;
    engine.analysis.compile_commands_dir = WARPLENS_REWRITE_SNIPPETS;
    KernelSurvey survey = survey_kernel({fs::absolute(p).string(), code}, s.kernel, engine, /*apply=*/true);
    REQUIRE_MESSAGE(survey.parsed, survey.error);
    const RewriteOption* option = nullptr;
    for (const auto& o : survey.options)
      if (matches(o, s)) option = &o;
    if (!s.applies) {
      CHECK_MESSAGE(option == nullptr, "expected a refusal, got " << (option ? option->step.to_string() : ""));
      std::string reasons;
      for (const auto& r : survey.refused)
        if (r.rewrite == s.rewrite) reasons += r.reason;
      if (!option) CHECK_MESSAGE(reasons.find(s.reason) != std::string::npos, "reason was: " << reasons);
      continue;
    }
    std::string refusal;
    for (const auto& r : survey.refused)
      if (r.rewrite == s.rewrite) refusal = r.reason;
    REQUIRE_MESSAGE(option != nullptr, "not proposed: " << refusal);
    REQUIRE(option->result.has_value());
    REQUIRE_MESSAGE(option->result->ok, option->result->error);
    const std::string& out = option->result->source;
    if (const char* dump = std::getenv("WARPLENS_DUMP_REWRITES")) {
      std::ofstream(fs::path(dump) / p.filename()) << out;
    }
    for (const auto& want : s.outputs) CHECK_MESSAGE(out.find(want) != std::string::npos, "missing: " << want << "\n" << out);
    for (const auto& bad : s.not_outputs) CHECK_MESSAGE(out.find(bad) == std::string::npos, "unexpected: " << bad);
    if (!s.motivation.empty()) CHECK_MESSAGE(option->motivation.find(s.motivation) != std::string::npos, option->motivation);
    if (!s.launch.empty()) {
      std::string decls;
      for (const auto& l : option->result->launch_changes) decls += format_launch_declaration(l) + "\n";
      CHECK_MESSAGE(decls.find(s.launch) != std::string::npos, "launch declarations: " << decls);
    }
    std::string errors = nvcc_errors(out, p);
    CHECK_MESSAGE(errors.empty(), errors << "\n--- rewritten source ---\n" << out);
  }
  // Every rewrite in the catalogue has at least one snippet.
  for (const auto& info : rewrite_catalogue())
    if (std::getenv("WARPLENS_REQUIRE_ALL_SNIPPETS")) CHECK_MESSAGE(covered.count(info.name), "no snippet for " << info.name);
}
