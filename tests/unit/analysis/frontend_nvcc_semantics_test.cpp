// nvcc semantics the Clang front end lacks on its own, one snippet each:
// host-side min/max, surface object functions, dynamic parallelism with
// -rdc, host-compiler OpenMP (<omp.h>), and a missing header reported once.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "tests/support/analysis_requirements.h"
#include "tests/unit/analysis/frontend_snippets.h"

using namespace warplens;
using namespace warplens::testing;
using warplens::test::needs;
namespace fs = std::filesystem;

namespace {

// A file analysed with an nvcc compile command (the snippet helper uses
// defaults): `flags` go between `nvcc` and the file.
struct Compiled {
  AnalysisResult result;
  std::string path;
  std::vector<const Finding*> errors() const {
    std::vector<const Finding*> out;
    for (const auto& f : result.findings)
      if (f.source == "clang" && f.severity == Severity::Error) out.push_back(&f);
    return out;
  }
  std::string error_text() const {
    std::string s;
    for (const Finding* f : errors()) s += std::to_string(f->location.range.start.line + 1) + ": " + f->message + "\n";
    return s;
  }
};

Compiled compile(const std::string& name, const std::string& code, const std::string& flags) {
  fs::path dir = fs::temp_directory_path() / ("warplens_nvcc_semantics_" + name);
  fs::create_directories(dir);
  fs::path file = dir / (name + ".cu");
  std::ofstream(file) << code;
  std::ofstream(dir / "compile_commands.json")
      << "[{\"directory\": \"" << dir.string() << "\", \"file\": \"" << file.string()
      << "\", \"command\": \"nvcc -std=c++17 -arch=sm_90 " << flags << " -c " << file.string() << "\"}]\n";
  AnalysisOptions o;
  o.run_static_analyses = false;
  o.compile_commands_dir = dir.string();
  Compiled c{analyze({file.string(), code}, o), file.string()};
  return c;
}

}  // namespace

TEST_CASE("host code calls min and max with nvcc's overloads") {
  auto s = parse_snippet(R"cu(
#include <cuda_runtime.h>
__global__ void k(int* p, int n) { p[threadIdx.x] = max(n, 3) + min(n, (int)threadIdx.x); }
int main(int argc, char**) {
  unsigned u = 7;
  size_t bytes = 1 << 20;
  int blocks = min(argc * 64, 1024);
  unsigned grid = max(u, 2u) + min(argc, u);   // mixed int / unsigned
  size_t chunk = max(bytes, (size_t)4096);
  double d = max(1.5f, 2.0);                    // float / double
  return blocks + grid + (int)chunk + (int)d;
}
)cu");
  CHECK_MESSAGE(s.clang_errors().empty(), s.clang_errors());
  // Device code keeps the device overloads (and their ambiguity, as nvcc has it).
  auto bad = parse_snippet("__global__ void k(float* p, int i) { p[i] = max(i, 0.5f); }\n");
  CHECK(bad.clang_errors().find("ambiguous") != std::string::npos);
}

// Surface types come from the CUDA toolkit.
TEST_CASE("surface object functions are declared as nvcc declares them" * needs("cuda-toolkit")) {
  auto s = parse_snippet(R"cu(
#include <cuda_runtime.h>
__global__ void k(cudaSurfaceObject_t in, cudaSurfaceObject_t out, cudaTextureObject_t t, int w) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  float v;
  surf2Dread(&v, in, x * 4, y);
  float4 c = surf2Dread<float4>(in, x * 16, y, cudaBoundaryModeClamp);
  surf2Dwrite(v + c.x + tex2D<float>(t, x + 0.5f, y + 0.5f), out, x * 4, y);
  surf1Dwrite(c, out, x * 16);
  surf3Dwrite(v, out, x * 4, y, 0);
  uchar4 u = surf2DLayeredread<uchar4>(in, x * 4, y, 1);
  surfCubemapwrite(u, out, x * 4, y, 2);
}
)cu");
  CHECK_MESSAGE(s.clang_errors().empty(), s.clang_errors());
  CHECK(s.function("k").params.size() == 4);
}

TEST_CASE("a kernel launched from a kernel: accepted with -rdc=true, explained without") {
  const std::string code = R"cu(
#include <cuda_runtime.h>
__global__ void child(int* p) { p[threadIdx.x] = 1; }
__global__ void parent(int* p) {
  if (threadIdx.x == 0) child<<<1, 32, 0, cudaStreamTailLaunch>>>(p);
}
int main() { int* p = nullptr; parent<<<1, 1>>>(p); }
)cu";
  auto rdc = compile("rdc", code, "-rdc=true");
  CHECK_MESSAGE(rdc.errors().empty(), rdc.error_text());
  CHECK(std::find(rdc.result.toolchain.clang_args.begin(), rdc.result.toolchain.clang_args.end(), "-fgpu-rdc") !=
        rdc.result.toolchain.clang_args.end());
  auto whole = compile("no_rdc", code, "");
  REQUIRE(whole.errors().size() == 1);
  CHECK(whole.errors()[0]->location.range.start.line == 4);
  CHECK(whole.errors()[0]->message.find("needs relocatable device code: nvcc requires -rdc=true") !=
        std::string::npos);
}

TEST_CASE("a kernel launching itself, declared differently in a header (cuda-samples' quicksort): accepted with -rdc") {
  // The declaration and the definition differ, so they overload: Clang
  // fails overload resolution for the device-side launch (a note says
  // "call to __global__ function from __global__ function") and complains
  // about `__cudaPushCallConfiguration`, not the kernel.
  const std::string code = R"cu(
#include <cuda_runtime.h>
__global__ void qsort_step(unsigned* data, unsigned n);
__global__ void qsort_step(unsigned* data, unsigned n, int depth) {
  if (threadIdx.x != 0 || n < 2 || depth > 8) return;
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  unsigned blocks = (n + 127) >> 7;
  qsort_step<<<blocks, 128, 0, s>>>(data, n / 2, depth + 1);
  cudaStreamDestroy(s);
}
int main() { qsort_step<<<1, 1>>>(nullptr, 1024, 0); }
)cu";
  auto rdc = compile("self_launch_rdc", code, "-rdc=true");
  CHECK_MESSAGE(rdc.errors().empty(), rdc.error_text());
  auto whole = compile("self_launch", code, "");
  REQUIRE_FALSE(whole.errors().empty());
  for (const Finding* e : whole.errors())
    CHECK_MESSAGE(e->message.find("needs relocatable device code: nvcc requires -rdc=true") != std::string::npos,
                  e->message);
}

TEST_CASE("inline PTX naming special registers (%globaltimer, %laneid) is accepted as nvcc does; a bad escape is not") {
  const std::string code = R"cu(
#include <cstdint>
__device__ uint64_t now() {
  uint64_t t;
  asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t));
  return t;
}
__device__ unsigned lane() {
  unsigned l;
  asm("mov.u32 %0, %%laneid;" : "=r"(l));
  unsigned c;
  asm volatile("mov.u32 %0, %laneid;" : "=r"(c));
  return l + c;
}
__global__ void k(uint64_t* out) { out[threadIdx.x] = now() + lane(); }
)cu";
  auto ptx = compile("ptx_registers", code, "");
  CHECK_MESSAGE(ptx.errors().empty(), ptx.error_text());
  auto bad = compile("bad_escape", "__device__ int f(int x) { int y; asm(\"mov.u32 %0, %!;\" : \"=r\"(y) : \"r\"(x)); return y; }\n", "");
  REQUIRE(bad.errors().size() == 1);
  CHECK(bad.errors()[0]->code == "asm_invalid_escape");
}

TEST_CASE("a host variable-length array with an initialiser (g++ accepts it, so nvcc does)") {
  const std::string code = R"cu(
#include <cuda_runtime.h>
__global__ void k(cudaSurfaceObject_t* s) {}
void launch(int planes) {
  cudaSurfaceObject_t objects[planes] = {0};
  k<<<1, 1>>>(objects);
}
)cu";
  auto vla = compile("vla_init", code, "");
  CHECK_MESSAGE(vla.errors().empty(), vla.error_text());
}

TEST_CASE("-Xcompiler -fopenmp: the host's <omp.h> is found") {
  const std::string code = R"cu(
#include <omp.h>
#include <cstdio>
__global__ void k(int* p) { p[threadIdx.x] = 1; }
int main() {
  omp_set_num_threads(4);
#pragma omp parallel
  { printf("%d of %d\n", omp_get_thread_num(), omp_get_num_threads()); }
  return omp_get_wtime() > 0;
}
)cu";
  auto omp = compile("omp", code, "-Xcompiler -fopenmp");
  CHECK_MESSAGE(omp.errors().empty(), omp.error_text());
  auto without = compile("no_omp", code, "");
  // Without -fopenmp nothing adds it (as with gcc without -fopenmp when the
  // header is not on its path): one clear error.
  if (!without.errors().empty()) CHECK(without.errors()[0]->message.find("'omp.h' file not found") == 0);
}

TEST_CASE("a header the flags do not point at: one error that says so, the rest analysed") {
  auto c = compile("missing", R"cu(
#include <cuda_runtime.h>
#include "cudla_like_missing_header.h"
__global__ void k(float* a, dlaHandle_t h) { a[threadIdx.x] = use(h); }
__global__ void after(float* a) { a[threadIdx.x] = 2; }
)cu",
                   "");
  REQUIRE(c.errors().size() == 1);
  const Finding& f = *c.errors()[0];
  CHECK(f.location.range.start.line == 2);
  CHECK(f.message.find("'cudla_like_missing_header.h' file not found: it is on none of the compile command's "
                       "include paths") == 0);
  // `dlaHandle_t` is unknown: the kernel using it is the one error hidden.
  CHECK(f.message.find("; 1 later error not reported (it may follow from the missing header)") != std::string::npos);
  // The parse went on: the kernel after the missing names is in the model.
  bool found = false;
  for (const auto& fn : c.result.model.functions) found = found || fn.name == "after";
  CHECK(found);
}
