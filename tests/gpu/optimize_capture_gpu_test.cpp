// The editor optimize job's capture path on a real GPU, through the real
// launch capture (libwarplens_inject.so) and the real capture/replay
// verifier, on examples/optimize/strided_copy.cu copied into a temporary
// workspace:
//
//   - buildCommand (nvcc) then profileCommand (./app) captures the first 3
//     launches of `scale_copy_chunked`, matched by the anchored kernel regex
//     on the driver's real (mangled) symbol;
//   - the regex of `scale_copy` (the host wrapper's name, a prefix of the
//     kernel's) captures nothing, and the error says so;
//   - the capture directory is usable by agent::CaptureVerifier: the
//     unchanged original, as a candidate, compiles and is correct.
//
// Exits 77 (ctest: skipped) without a GPU. Builds without Clang. With
// WARPLENS_GPU_OUT set, a summary JSON is written there.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "agent/capture_verifier.h"
#include "profiler/gpu_probe.h"
#include "workflows/kernel_capture.h"

namespace fs = std::filesystem;
using namespace warplens;

namespace {

nlohmann::json g_summary;

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Workspace {
  fs::path dir = fs::temp_directory_path() / ("warplens-optimize-capture-gpu-" + std::to_string(::getpid()));
  Workspace() {
    fs::create_directories(dir);
    const fs::path examples = fs::path(WARPLENS_SOURCE_DIR) / "examples" / "optimize";
    fs::copy_file(examples / "strided_copy.cu", dir / "strided_copy.cu", fs::copy_options::overwrite_existing);
    fs::copy_file(examples / "harness.cuh", dir / "harness.cuh", fs::copy_options::overwrite_existing);
  }
  ~Workspace() { fs::remove_all(dir); }
};

workflows::KernelCaptureRequest request(const Workspace& ws, const std::string& kernel) {
  workflows::KernelCaptureRequest r;
  r.kernel = kernel;
  r.build_command = "nvcc -O3 -arch=native -lineinfo -o app strided_copy.cu";
  r.profile_command = "./app";
  r.working_directory = ws.dir.string();
  r.max_launches = 3;
  r.timeout = std::chrono::seconds(300);
  return r;
}

workflows::CaptureFn real_capture() {
  return [](const verifier::CaptureRequest& r, std::stop_token s) { return verifier::capture_program(r, s); };
}

}  // namespace

TEST_CASE("profileCommand: the kernel's first launches are captured and replay the original correctly") {
  Workspace ws;
  std::vector<std::string> steps;
  workflows::KernelCapture cap = workflows::capture_kernel_launches(
      request(ws, "scale_copy_chunked"), real_capture(), [&](const std::string& m) { steps.push_back(m); }, {});
  g_summary["captured_launches"] = cap.launches;
  g_summary["steps"] = steps;
  CHECK(cap.launches >= 1);
  CHECK(cap.launches <= 3);
  REQUIRE(fs::exists(fs::path(cap.capture_dir) / "manifest.json"));
  g_summary["manifest_kernels"] = nlohmann::json::array();
  for (const auto& l : nlohmann::json::parse(read(fs::path(cap.capture_dir) / "manifest.json"))["launches"])
    g_summary["manifest_kernels"].push_back(l.value("kernel", ""));

  agent::CaptureVerifierOptions o;
  o.capture_dir = cap.capture_dir;
  o.original_source = ws.dir / "strided_copy.cu";
  o.input_sets = 3;
  o.timed_runs = 5;
  o.work_dir = ws.dir / "verify";
  agent::CaptureVerifier verifier(o);
  agent::Candidate same;
  same.id = "c00";
  same.kernel = "scale_copy_chunked";
  same.source = read(ws.dir / "strided_copy.cu");
  agent::CandidateVerdict v = verifier.verify(same, {});
  g_summary["original_as_candidate"] = {{"compiled", v.compiled}, {"correct", v.correct},
                                        {"input_sets", v.input_sets}, {"speedup", v.speedup},
                                        {"reason", v.reason}, {"compile_log", v.compile_log}};
  INFO(v.reason, v.compile_log);
  CHECK(v.compiled);
  CHECK(v.correct);
}

TEST_CASE("a name that is only a prefix of the kernel's captures nothing, and the error says so") {
  Workspace ws;
  std::string error;
  try {
    workflows::capture_kernel_launches(request(ws, "scale_copy"), real_capture(), [](const std::string&) {}, {});
  } catch (const workflows::OptimizeCaptureError& e) {
    error = e.what();
  }
  g_summary["prefix_error"] = error;
  CHECK(error.find("no launch of `scale_copy` was captured") != std::string::npos);
}

int main(int argc, char** argv) {
  profile::GpuStatus gpu = profile::probe_gpus();
  if (!gpu.available) {
    std::printf("no GPU (%s): skipped\n", gpu.reason.c_str());
    return 77;
  }
  doctest::Context context(argc, argv);
  int rc = context.run();
  if (const char* out = std::getenv("WARPLENS_GPU_OUT"); out && *out) {
    fs::create_directories(out);
    std::ofstream(fs::path(out) / "optimize_capture.json") << g_summary.dump(2) << "\n";
  }
  return rc;
}
