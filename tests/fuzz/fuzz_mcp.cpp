// libFuzzer target: the MCP server (`warplens mcp`), in process, on what a
// client writes to its stdin (newline-delimited JSON-RPC).
//
// A fresh Session per input over the real tools (their schemas, argument
// checks, path rules and file reads) with fake engine services: the
// analysis returns an empty model, the GPU probe finds none, verify,
// profile, optimize and capture fail as they do without a GPU, so nothing
// runs a program. The workspace is a temporary directory holding one .cu
// file, a FIFO and a directory (the file arguments that once hung a call).
// Exceptions that escape, crashes, hangs and leaks are bugs.
#include <sys/stat.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <vector>

#include "mcp/session.h"
#include "mcp/tool_env.h"
#include "protocol/line_framing.h"
#include "common/crash_recovery.h"
#include "tests/fuzz/fuzz_logging.h"

namespace {

namespace fs = std::filesystem;
using namespace warplens;

fs::path make_root() {
  fs::path root = fs::temp_directory_path() / ("warplens-fuzz-mcp-" + std::to_string(::getpid()));
  fs::create_directories(root / "src");
  fs::create_directories(root / "dir.cu");
  std::ofstream(root / "src" / "k.cu") << "__global__ void k(float* x) { x[threadIdx.x] = 1.0f; }\n";
  ::mkfifo((root / "src" / "fifo.cu").c_str(), 0600);
  return fs::canonical(root);
}

mcp::ToolServices fake_services() {
  mcp::ToolServices s;
  s.analyze = [](const SourceFile& f, const AnalysisOptions&, bool, std::stop_token) {
    workflows::FileAnalysis a;
    a.result.parsed = true;
    a.result.file = f.path;
    a.result.model.file = f.path;
    a.resources_skipped = "fuzzing";
    return a;
  };
  s.verify = [](const verifier::VerifyRequest& r, std::stop_token, const verifier::ProgressCallback&) {
    verifier::Verdict v;
    v.status = verifier::VerdictStatus::Error;
    v.error = "no usable CUDA GPU (fuzzing)";
    v.level = -1;
    v.kernel = r.kernel;
    return v;
  };
  s.probe = [](std::stop_token) {
    profile::GpuStatus none;
    none.available = false;
    none.reason = "no GPU (fuzzing)";
    return none;
  };
  s.profile = [](const workflows::ProfileJobRequest&, std::stop_token, const workflows::ProfileProgress&,
                 const workflows::GpuProbe&) -> workflows::ProfileJobResult {
    throw workflows::ProfileJobError("no GPU (fuzzing)", workflows::ProfileJobError::Kind::NoGpu);
  };
  s.optimize = [](const agent::OptimizeRequest&, const workflows::OptimizeContext&, const agent::ProgressCallback&,
                  std::stop_token) -> workflows::OptimizeOutcome {
    throw workflows::OptimizeUnavailable("no usable CUDA GPU (fuzzing)");
  };
  s.capture = [](const verifier::CaptureRequest&, std::stop_token) { return verifier::CaptureRunResult{}; };
  return s;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  warplens::fuzz::configure_logging();
  // A crash inside Clang is a finding here, not a warning to recover from
  // (common/crash_recovery.h): libFuzzer and ASan must see it.
  warplens::common::set_crash_recovery(false);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const fs::path root = make_root();
  mcp::WorkspaceConfig config;
  config.root = root;
  mcp::ToolOptions options;
  options.docs_dir = "";
  options.resource_usage = false;
  mcp::ToolEnv env(config, options, fake_services());
  std::mutex mu;
  std::size_t sent = 0;
  {
    mcp::Session session(mcp::ServerInfo{}, mcp::make_tools(env), [&](const nlohmann::json& m) {
      std::lock_guard lock(mu);
      if (++sent % 16 == 0) (void)protocol::line_json(m);  // every message must stay serialisable
    });
    protocol::LineReader reader(1u << 20);
    std::vector<protocol::FrameEvent> events;
    reader.feed(std::string_view(reinterpret_cast<const char*>(data), size), events);
    for (auto& e : events) {
      if (auto* f = std::get_if<protocol::Frame>(&e))
        session.handle(f->body);
      else
        session.handle_framing_error(std::get<protocol::FramingError>(e));
    }
    session.shutdown();
  }
  return 0;
}
