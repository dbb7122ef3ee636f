// `warplens optimize` argument handling and its no-GPU paths.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "agent/rewrite_engine.h"
#include "cli/optimize.h"

namespace fs = std::filesystem;

namespace {

int run(std::vector<std::string> args) {
  args.insert(args.begin(), "optimize");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  return warplens::cli::run_optimize_command(static_cast<int>(argv.size()), argv.data());
}

}  // namespace

TEST_CASE("bad arguments are usage errors") {
  CHECK(run({"--help"}) == 0);
  CHECK(run({}) == 2);                                         // no FILE
  CHECK(run({"x.cu"}) == 2);                                   // no --kernel
  CHECK(run({"x.cu", "--kernel", "k", "--candidates-only"}) == 2);  // no --out
  CHECK(run({"x.cu", "--kernel", "k", "--policy", "magic"}) == 2);
  CHECK(run({"x.cu", "--kernel", "k", "--max-candidates", "zero"}) == 2);
  CHECK(run({"x.cu", "--verify-dir", "d"}) == 2);              // both modes
  CHECK(run({"--verify-dir", "/nonexistent/warplens"}) == 2);  // no manifest
  CHECK(run({"/nonexistent/x.cu", "--kernel", "k"}) == 2);     // unreadable file
  // --capture pairs with --verify-dir, one each, in order.
  CHECK(run({"--verify-dir", "a", "--verify-dir", "b", "--capture", "c"}) == 2);
  CHECK(run({"x.cu", "--kernel", "k", "--capture", "c1", "--capture", "c2"}) == 2);
  CHECK(run({"x.cu", "--kernel", "k", "--candidates-only", "--out", "d", "--capture", "c"}) == 2);
  CHECK(run({"--verify-dir", "/nonexistent/warplens", "--capture", "/nonexistent/capture"}) == 2);
}

TEST_CASE("--candidates-only writes a candidate directory (or explains why not)") {
  const fs::path dir = fs::temp_directory_path() / "warplens-cli-candidates";
  fs::remove_all(dir);
  const fs::path file = fs::temp_directory_path() / "warplens_cli_saxpy.cu";
  std::ofstream(file) << "#include <cuda_runtime.h>\n"
                         "__global__ void saxpy(float a, const float* x, float* y, int n) {\n"
                         "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                         "  if (i < n) y[i] = a * x[i] + y[i];\n"
                         "}\n"
                         "void run(const float* x, float* y, int n) { saxpy<<<(n + 255) / 256, 256>>>(2.f, x, y, n); }\n";
  const int rc = run({file.string(), "--kernel", "saxpy", "--candidates-only", "--out", dir.string(),
                      "--max-candidates", "3"});
  if (!warplens::agent::rewrite_engine_available()) {
    CHECK(rc == 2);  // the engine is missing, and says so
    return;
  }
  CHECK(rc == 0);
  CHECK(fs::exists(dir / "manifest.json"));
  CHECK(fs::exists(dir / "original.cu"));
  CHECK(fs::exists(dir / "c01.cu"));
  CHECK(run({file.string(), "--kernel", "nosuch", "--candidates-only", "--out", dir.string()}) == 2);
}

TEST_CASE("--pytorch-times reach every program's summary row (level 3 needs them)") {
  // The original cannot run here (no nvcc under that name), so nothing is
  // verified; the PyTorch references must still be attached to each program.
  const fs::path tmp = fs::temp_directory_path() / "warplens-cli-torch-times";
  fs::remove_all(tmp);
  fs::create_directories(tmp);
  std::ofstream(tmp / "torch.json") << R"({"strided_copy": {"eager_ms": 0.155, "compiled_ms": 0.171},
                                          "transpose_naive": {"eager_ms": 0.478, "compiled_ms": 0.178}})";
  const std::string candidates = std::string(WARPLENS_SOURCE_DIR) + "/tests/gpu/optimize_candidates/";
  run({"--verify-dir", candidates + "strided_copy", "--verify-dir", candidates + "transpose_naive", "--pytorch-times",
       (tmp / "torch.json").string(), "--max-candidates", "1", "--nvcc", "/nonexistent/nvcc", "--report",
       (tmp / "reports").string()});
  std::ifstream in(tmp / "reports" / "summary.json");
  REQUIRE(in);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(text.find("\"eager_ms\": 0.155") != std::string::npos);
  CHECK(text.find("\"compiled_ms\": 0.178") != std::string::npos);
}
