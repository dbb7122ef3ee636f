#include <doctest/doctest.h>

#include <fstream>

#include "agent/verifier/compile.h"
#include "tests/unit/agent/verifier_test_support.h"

using namespace warplens::verifier;

namespace {
bool is_elf(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  char magic[4] = {};
  in.read(magic, 4);
  return magic[0] == 0x7f && magic[1] == 'E' && magic[2] == 'L' && magic[3] == 'F';
}
}  // namespace

TEST_CASE("nvcc: a kernel with host code compiles to a cubin for the given arch") {
  test::TempDir dir;
  auto src = dir.path() / "k.cu";
  std::ofstream(src) << test::kScaleAddSource;
  CompileRequest req;
  req.source = src;
  req.output = dir.path() / "k.cubin";
  req.arch = "sm_90";
  auto r = compile_to_cubin(req);
  INFO(r.log);
  CHECK(r.ok);
  CHECK_FALSE(r.relocatable);
  CHECK(is_elf(req.output));
  CHECK(r.command.find("-cubin -arch=sm_90 -O3 -lineinfo") != std::string::npos);
}

TEST_CASE("nvcc: includes from the source's own directory resolve") {
  test::TempDir dir;
  std::ofstream(dir.path() / "scale.h") << "#define SCALE 2.0f\n";
  std::ofstream(dir.path() / "k.cu") << "#include \"scale.h\"\n__global__ void k(float* x) { x[0] *= SCALE; }\n";
  CompileRequest req;
  req.source = dir.path() / "k.cu";
  req.output = dir.path() / "k.cubin";
  req.arch = "sm_90";
  CHECK(compile_to_cubin(req).ok);
}

TEST_CASE("nvcc: a compile error is reported with nvcc's message") {
  test::TempDir dir;
  std::ofstream(dir.path() / "bad.cu") << "__global__ void k(float* x) { x[0] = undefined_thing; }\n";
  CompileRequest req;
  req.source = dir.path() / "bad.cu";
  req.output = dir.path() / "bad.cubin";
  req.arch = "sm_90";
  auto r = compile_to_cubin(req);
  CHECK_FALSE(r.ok);
  CHECK(r.log.find("undefined_thing") != std::string::npos);
}

TEST_CASE("nvcc: dynamic parallelism falls back to -rdc=true and a device link") {
  test::TempDir dir;
  std::ofstream(dir.path() / "cdp.cu") << R"(
__global__ void child(float* o, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) o[i] = 1.f; }
__global__ void parent(float* o, int n) {
  if (threadIdx.x == 0 && blockIdx.x == 0) child<<<(n + 255) / 256, 256, 0, cudaStreamFireAndForget>>>(o, n);
}
)";
  CompileRequest req;
  req.source = dir.path() / "cdp.cu";
  req.output = dir.path() / "cdp.cubin";
  req.arch = "sm_90";
  auto r = compile_to_cubin(req);
  INFO(r.log);
  CHECK(r.ok);
  CHECK(r.relocatable);
  CHECK(is_elf(req.output));
  CHECK(needs_relocatable_device_code("error: kernel launch from __device__ or __global__ functions requires "
                                      "separate compilation mode"));
}
