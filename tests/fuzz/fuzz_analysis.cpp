// libFuzzer target: the analysis of a .cu document, as the server runs it
// while the user types (front end, kernel model, static analyses).
//
// The input is the document's text. The toolkit's headers are left out
// (degraded mode, the bundled prelude) so that one run takes milliseconds,
// not the second the CUDA headers cost; the limits are the defaults except
// time, so a slow input is reported (-timeout) rather than cut. Nothing is
// run (no nvcc). Crashes, hangs, leaks and undefined behaviour are bugs.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "analysis/analyzer.h"
#include "common/crash_recovery.h"
#include "tests/fuzz/fuzz_logging.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  warplens::fuzz::configure_logging();
  // A crash inside Clang is a finding here, not a warning to recover from
  // (common/crash_recovery.h): libFuzzer and ASan must see it.
  warplens::common::set_crash_recovery(false);
  // No toolkit: the analysis must not depend on one, and is 50x faster without.
  ::setenv("CUDA_PATH", "/nonexistent-cuda", 1);
  ::unsetenv("CUDA_HOME");
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  warplens::SourceFile file{"/nonexistent-fuzz-dir/input.cu", std::string(reinterpret_cast<const char*>(data), size)};
  warplens::AnalysisOptions options;
  options.cuda_path = "/nonexistent-cuda";
  options.compile_commands_dir = "/nonexistent-fuzz-dir";
  options.limits.max_time = std::chrono::milliseconds(60'000);
  warplens::AnalysisResult result = warplens::analyze(file, options);
  (void)result;
  return 0;
}
