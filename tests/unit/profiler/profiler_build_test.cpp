// Single-file builds with the real nvcc (no GPU needed to compile).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "profiler/build_single_file.h"
#include "profiler/scratch_dir.h"
#include "test_support.h"
#include "tests/support/requirements.h"

using namespace warplens;
using namespace warplens::profile;
using warplens::test::needs;

namespace {
std::string test_nvcc() {
  std::string n = WARPLENS_TEST_NVCC;
  return n.empty() ? locate_nvcc() : n;
}
// The nvcc this build found (or the one on PATH): the single-file build's compiler.
WARPLENS_REQUIREMENT("build-nvcc", [] {
  return test_nvcc().empty() ? warplens::test::missing("nvcc not found (the build found none, and none is on PATH)")
                             : warplens::test::met();
});
}  // namespace

TEST_CASE("a self-contained .cu builds with -lineinfo -O3 for the given arch" * needs("build-nvcc")) {
  std::string nvcc = test_nvcc();
  ScratchDir dir("warplens-build-test-");
  BuildOptions o;
  o.source = test::source_dir() + "/tests/gpu/profiler_strided_copy.cu";
  o.arch = "sm_90";
  o.output_dir = dir.path();
  o.nvcc = nvcc;
  BuildResult r = build_single_file(o);
  REQUIRE_MESSAGE(r.ok, r.message);
  CHECK(std::filesystem::is_regular_file(r.executable));
  CHECK(r.executable == dir.file("profiler_strided_copy"));
  std::vector<std::string> expected = {nvcc, "-lineinfo", "-O3", "-arch=sm_90", "-o", r.executable, o.source};
  CHECK(r.command == expected);
}

TEST_CASE("single-file build errors say what to do: a missing file") {
  ScratchDir dir("warplens-build-test-");
  BuildOptions o;
  o.output_dir = dir.path();
  o.arch = "sm_90";
  o.source = dir.file("missing.cu");
  CHECK(build_single_file(o).message == "cannot read " + o.source + ": no such file");
}

TEST_CASE("single-file build errors say what to do: what nvcc refuses" * needs("build-nvcc")) {
  ScratchDir dir("warplens-build-test-");
  BuildOptions o;
  o.output_dir = dir.path();
  o.arch = "sm_90";
  o.nvcc = test_nvcc();
  o.source = dir.file("kernel_only.cu");
  std::ofstream(o.source) << "__global__ void k(float* p) { p[threadIdx.x] = 1.0f; }\n";
  BuildResult no_main = build_single_file(o);
  CHECK_FALSE(no_main.ok);
  CHECK(no_main.message.find("has no main()") != std::string::npos);
  CHECK(no_main.message.find("warplens profile -- PROGRAM ARGS") != std::string::npos);

  o.source = dir.file("broken.cu");
  std::ofstream(o.source) << "int main() { return undeclared; }\n";
  BuildResult broken = build_single_file(o);
  CHECK_FALSE(broken.ok);
  CHECK(broken.message.find("nvcc failed to build") == 0);
  CHECK(broken.message.find("undeclared") != std::string::npos);
}
