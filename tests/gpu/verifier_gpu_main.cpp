// The verifier GPU suite (ctest label gpu). Exits 77 (skipped) when there is
// no GPU, no warplens-replay or no nvcc; otherwise builds and captures the
// case programs, runs the adversarial and honest candidates, and leaves
// verdicts, fixtures and a summary under $WARPLENS_VERIFIER_OUT.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "agent/verifier/compile.h"
#include "agent/verifier/replay_process.h"
#include "tests/gpu/verifier_gpu_support.h"

namespace fs = std::filesystem;
using namespace warplens::verifier;

int main(int argc, char** argv) {
  auto& e = gpu::env();
  std::string error;
  e.replay = find_replay_binary("", &error);
  if (e.replay.empty()) {
    std::fprintf(stderr, "skipped: %s\n", error.c_str());
    return 77;
  }
  if (find_nvcc("").empty()) {
    std::fprintf(stderr, "skipped: nvcc not found\n");
    return 77;
  }
  if (const char* out = std::getenv("WARPLENS_VERIFIER_OUT"); out && *out) {
    e.out_dir = out;
  } else {
    std::string tmpl = (fs::temp_directory_path() / "warplens-verifier-gpu-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) return 1;
    e.out_dir = tmpl;
  }
  // Large files (programs, captures, kept work directories) stay out of
  // the output directory, which the GPU machine sends back.
  if (const char* work = std::getenv("WARPLENS_VERIFIER_WORK"); work && *work) e.work_dir = work;
  else e.work_dir = e.out_dir / "work";
  fs::create_directories(e.work_dir);
  DeviceProbe probe = probe_gpu(e.replay, e.work_dir);
  if (!probe.ok) {
    std::fprintf(stderr, "skipped: %s\n", probe.error.c_str());
    return 77;
  }
  e.device = probe.device;
  e.cases_dir = fs::path(WARPLENS_SOURCE_DIR) / "tests" / "gpu" / "verifier_cases";
  // Which rows this recording holds: the CI tests that read it expect the
  // rows of its version (verifier_recorded_test.cpp). 2: issue 14's rows.
  fs::create_directories(gpu::fixture_path(""));
  std::ofstream(gpu::fixture_path("suite.txt")) << "warplens verifier GPU suite 2\n";
  std::fprintf(stderr, "[verifier-gpu] %s (%s, L2 %llu MiB); output in %s, work in %s\n", e.device.name.c_str(),
               e.device.arch.c_str(), static_cast<unsigned long long>(e.device.l2_bytes >> 20), e.out_dir.c_str(),
               e.work_dir.c_str());
  doctest::Context context(argc, argv);
  return context.run();
}
