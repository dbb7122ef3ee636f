// libFuzzer target: the language server, in process, on a stream of frames.
//
// The input is what a client writes to the server's stdin. A fresh server
// per input (no state carried between inputs) with a fake engine that
// reports one finding with a fix per line containing `k` (so hovers, code
// actions and their resolve data have something to work on), no nvcc, no
// GPU, no jobs that run programs. After every frame the io_context runs
// what is ready, like the real event loop between reads. Exceptions that
// escape, crashes, hangs and leaks are bugs.
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>

#include "protocol/framing.h"
#include "server/language_server.h"
#include "workflows/optimize.h"
#include "common/crash_recovery.h"
#include "tests/fuzz/fuzz_logging.h"

namespace {

using warplens::protocol::json;

class NullOutbox : public warplens::server::Outbox {
 public:
  void send(const json& message) override {
    std::lock_guard lock(mu_);
    if (++sent_ % 64 == 0) (void)message.dump();  // messages must stay serialisable
  }

 private:
  std::mutex mu_;
  std::size_t sent_ = 0;
};

warplens::AnalysisResult fake_analyze(const warplens::SourceFile& file, const warplens::AnalysisOptions&,
                                      std::stop_token) {
  warplens::AnalysisResult r;
  r.file = file.path;
  r.parsed = true;
  r.model.file = file.path;
  int line = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= file.text.size() && line < 50; ++i) {
    if (i < file.text.size() && file.text[i] != '\n') continue;
    std::string_view l(file.text.data() + start, i - start);
    if (auto k = l.find('k'); k != std::string_view::npos) {
      warplens::Finding f;
      f.code = warplens::codes::kSharedBankConflict;
      f.severity = warplens::Severity::Warning;
      f.source = "warplens";
      f.location = {file.path, {{line, static_cast<int>(k)}, {line, static_cast<int>(l.size())}}};
      f.message = "fuzz finding";
      f.explanation_markdown = "hover";
      warplens::Fix fix;
      fix.title = "pad";
      fix.file = file.path;
      fix.edits.push_back({{{line, static_cast<int>(k)}, {line, static_cast<int>(k) + 1}}, "kk"});
      f.fixes.push_back(std::move(fix));
      r.findings.push_back(std::move(f));
    }
    ++line;
    start = i + 1;
  }
  return r;
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
  boost::asio::io_context io;
  NullOutbox out;
  warplens::server::ServerOptions options;
  options.debounce = std::chrono::milliseconds(0);
  options.workers = 1;
  options.test_commands = false;
  // No GPU, so profile jobs stop before they would run profileCommand or
  // buildCommand (a fuzzed setting must never reach /bin/sh), and optimize
  // jobs before they would build anything.
  options.gpu_probe = [](std::stop_token) {
    warplens::profile::GpuStatus none;
    none.available = false;
    none.reason = "no GPU (fuzzing)";
    return none;
  };
  options.optimize = [](const warplens::agent::OptimizeRequest&, const warplens::workflows::OptimizeContext&,
                        const warplens::agent::ProgressCallback&, std::stop_token) -> warplens::workflows::OptimizeOutcome {
    throw warplens::workflows::OptimizeUnavailable("not while fuzzing");
  };
  {
    warplens::server::LanguageServer server(io, out, fake_analyze, options);
    bool exited = false;
    server.on_exit([&](int) { exited = true; });
    warplens::protocol::FrameReader reader(1u << 20);
    std::vector<warplens::protocol::FrameEvent> events;
    reader.feed(std::string_view(reinterpret_cast<const char*>(data), size), events);
    for (const auto& e : events) {
      if (exited) break;
      server.receive(e);
      io.poll();
    }
    io.poll();
    server.stop_workers(std::chrono::seconds(5));
    io.poll();
  }
  return 0;
}
