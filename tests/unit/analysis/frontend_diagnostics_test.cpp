// Clang's diagnostics as findings, toolchain findings, degraded mode,
// compile_commands.json, headers in context, cancellation.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "analysis/frontend.h"
#include "tests/unit/analysis/frontend_snippets.h"

using namespace warplens;
using namespace warplens::testing;
namespace fs = std::filesystem;

TEST_CASE("clang errors become findings with their range, and analysis goes on") {
  auto s = parse_snippet(R"cu(
__device__ int helper(int x);
__global__ void k(float* a, int n) {
  int i = threadIdx.x;
  a[i] = $undeclared[[undeclared_thing]] + 1;
  int unused_var = 3;
  $bad_call[[helper]](1, 2);
  a[i + 1] = 2;
}
)cu");
  CHECK(s.result.parsed);
  auto errors = s.findings("undeclared_var_use");
  REQUIRE(errors.size() == 1);
  const Finding& e = *errors[0];
  CHECK(e.source == "clang");
  CHECK(e.severity == Severity::Error);
  CHECK(e.location.file == s.path);
  CHECK(e.location.range == s.source.range("undeclared"));
  CHECK(e.message.find("undeclared_thing") != std::string::npos);

  auto calls = s.findings("ovl_no_viable_function_in_call");
  REQUIRE(calls.size() == 1);
  CHECK(calls[0]->location.range == s.source.range("bad_call"));
  REQUIRE_FALSE(calls[0]->related.empty());  // "candidate function not viable: ..."
  CHECK(calls[0]->related[0].location.file == s.path);
  CHECK(calls[0]->related[0].location.range.start.line == 1);

  // The kernel is still modelled around the errors.
  const Function& k = s.function("k");
  CHECK(k.accesses.size() >= 1);
}

TEST_CASE("warnings carry their -W flag as code") {
  AnalysisOptions o;
  o.extra_args = {"-Wall"};
  auto s = parse_snippet(R"cu(
__global__ void k(float* a) {
  int $unused[[unused]] = 3;
  a[threadIdx.x] = 1;
}
)cu",
                         Toolchain::Cuda, o);
  auto w = s.findings("-Wunused-variable");
  REQUIRE(w.size() == 1);
  CHECK(w[0]->severity == Severity::Warning);
  CHECK(w[0]->location.range == s.source.range("unused"));
}

TEST_CASE("known clang-CUDA false positives are filtered") {
  auto s = parse_snippet(R"cu(
__device__ int sum(int n, ...) { return n; }
__global__ void k(int* a) {
  __shared__ int init_me = 0;
  a[threadIdx.x] = sum(1, 2) + init_me;
}
)cu");
  CHECK_MESSAGE(s.clang_errors().empty(), s.clang_errors());
  CHECK(s.function("k").accesses.size() >= 1);
}

TEST_CASE("errors inside headers are reported once at the include line") {
  fs::path dir = fs::temp_directory_path() / "warplens_header_errors";
  fs::create_directories(dir);
  std::ofstream(dir / "broken.cuh") << "#pragma once\nint broken_a = ;\nint broken_b = ;\n";
  std::ofstream(dir / "compile_commands.json") << "[]";
  Annotations src(R"cu(
#include $inc[["broken.cuh"]]
__global__ void k(float* a) { a[threadIdx.x] = 1; }
)cu");
  AnalysisOptions o;
  o.run_static_analyses = false;
  auto r = analyze({(dir / "main.cu").string(), src.code()}, o);
  std::vector<const Finding*> errors;
  for (const auto& f : r.findings)
    if (f.source == "clang" && f.severity == Severity::Error) errors.push_back(&f);
  REQUIRE(errors.size() == 1);
  CHECK(errors[0]->location.file == (dir / "main.cu").string());
  CHECK(errors[0]->location.range == src.range("inc"));
  CHECK(errors[0]->message.find("2 errors in included file 'broken.cuh'") == 0);
  REQUIRE(errors[0]->related.size() == 2);
  CHECK(errors[0]->related[0].location.file == (dir / "broken.cuh").string());
  CHECK(errors[0]->related[0].location.range.start.line == 1);
  CHECK(r.model.functions.size() == 1);
  fs::remove_all(dir);
}

TEST_CASE("toolchain status and the command line used") {
  auto s = parse_snippet("__global__ void k(float* a) { a[threadIdx.x] = 1; }\n");
  const ToolchainStatus& t = s.result.toolchain;
  CHECK(t.requested_arch == "sm_90");
  CHECK(t.parse_arch == "sm_90");
  CHECK(t.compile_command_source.find("defaults") == 0);
  auto has = [&](const std::string& arg) {
    return std::find(t.clang_args.begin(), t.clang_args.end(), arg) != t.clang_args.end();
  };
  CHECK(has("--cuda-device-only"));
  CHECK(has("-ferror-limit=0"));
  CHECK(has("--cuda-gpu-arch=sm_90"));
  CHECK(t.clang_args.back() == s.path);
  if (cuda_toolkit_available()) {
    CHECK(t.cuda_found);
    CHECK_FALSE(t.degraded);
    CHECK_FALSE(t.cuda_version.empty());
    CHECK(has("-Xclang"));
    CHECK(s.findings("cuda-toolkit").empty());
  }
}

TEST_CASE("architectures newer than clang 19 are clamped, and said so") {
  AnalysisOptions o;
  o.arch = "sm_100";
  auto s = parse_snippet("__global__ void k(float* a) { a[threadIdx.x] = 1; }\n", Toolchain::Cuda, o);
  CHECK_MESSAGE(s.clang_errors().empty(), s.clang_errors());
  CHECK(s.result.toolchain.requested_arch == "sm_100");
  CHECK(s.result.toolchain.parse_arch == "sm_90");
  auto notes = s.findings("cuda-toolkit");
  REQUIRE(notes.size() == 1);
  CHECK(notes[0]->severity == Severity::Information);
  CHECK(notes[0]->message.find("sm_100") != std::string::npos);
  CHECK(s.function("k").accesses.size() == 1);
}

TEST_CASE("without a toolkit the bundled prelude parses typical code (degraded mode)") {
  auto s = parse_snippet(R"cu(
#include <cuda_runtime.h>
#include <cstdio>
#include <cmath>
__global__ void k(float* a, const float4* v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  __shared__ float s[256];
  if (i < n) s[threadIdx.x] = expf(a[i]) + v[i].w + min(i, n);
  __syncthreads();
  atomicAdd(&a[0], s[threadIdx.x]);
  float x = __shfl_down_sync(0xffffffff, s[0], 1);
  if (x < 0) printf("%d\n", i);
  assert(n > 0);
}
int main() {
  float* d; cudaMalloc(&d, 1024);
  dim3 b(128);
  k<<<8, b>>>(d, nullptr, 1024);
  cudaDeviceSynchronize();
}
)cu",
                         Toolchain::Prelude);
  CHECK_MESSAGE(s.clang_errors().empty(), s.clang_errors());
  CHECK(s.result.toolchain.degraded);
  CHECK_FALSE(s.result.toolchain.cuda_found);
  auto notes = s.findings("cuda-toolkit");
  REQUIRE(notes.size() == 1);
  CHECK(notes[0]->severity == Severity::Information);
  CHECK(notes[0]->message.find("degraded") != std::string::npos);
  const Function& k = s.function("k");
  CHECK(k.accesses.size() == 6);
  CHECK(k.barriers.size() == 1);
  REQUIRE(s.result.model.launches.size() == 1);
  CHECK(s.result.model.launches[0].block.value == std::array<std::int64_t, 3>{128, 1, 1});
}

TEST_CASE("degraded mode: a missing CUDA library header is a warning that says why") {
  auto s = parse_snippet(R"cu(
#include $inc[[<cuda_fp16.h>]]
__global__ void k(float* a) { a[threadIdx.x] = 1; }
)cu",
                         Toolchain::Prelude);
  auto missing = s.findings("pp_file_not_found");
  REQUIRE(missing.size() == 1);
  CHECK(missing[0]->severity == Severity::Warning);
  CHECK(missing[0]->location.range == s.source.range("inc"));
  CHECK(missing[0]->message.find("no CUDA toolkit") != std::string::npos);
  CHECK(s.function("k").accesses.size() == 1);
}

TEST_CASE("the model is the same with and without the toolkit" * needs("cuda-toolkit")) {
  const char* code = R"cu(
#define TILE 32
__global__ void t(const float* in, float* out, int n) {
  __shared__ float tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += 8)
    if (x < n && y + j < n) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += 8) out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}
int main() { t<<<dim3(4, 4), dim3(TILE, 8)>>>(nullptr, nullptr, 128); }
)cu";
  auto a = parse_snippet(code, Toolchain::Cuda);
  auto b = parse_snippet(code, Toolchain::Prelude);
  CHECK(a.clang_errors().empty());
  CHECK(b.clang_errors().empty());
  std::string da = a.dump(), db = b.dump();
  // Keys and ranges are identical; only the snippet file name differs.
  CHECK(da == db);
}

TEST_CASE("compile_commands.json flags reach the parse; its arch is used") {
  fs::path dir = fs::temp_directory_path() / "warplens_cdb_parse";
  fs::remove_all(dir);
  fs::create_directories(dir / "include");
  std::ofstream(dir / "include" / "config.h") << "#pragma once\n#define WIDTH 48\n";
  std::ofstream(dir / "compile_commands.json")
      << R"([{"directory": ")" << dir.string()
      << R"(", "file": "k.cu", "command": "/usr/local/cuda/bin/nvcc -forward-unknown-to-host-compiler -Iinclude -DSCALE=3 --expt-relaxed-constexpr -gencode arch=compute_80,code=sm_80 -Xcompiler=-fPIC -x cu -c k.cu -o k.o"}])";
  Annotations src(R"cu(
#include "config.h"
#include "tests/support/analysis_requirements.h"

using warplens::test::needs;
#ifndef __CUDACC_RELAXED_CONSTEXPR__
#error relaxed constexpr macro missing
#endif
__global__ void k(float* a) { $acc[[a[threadIdx.x * WIDTH * SCALE]]] = __CUDA_ARCH__; }
)cu");
  AnalysisOptions o;
  o.run_static_analyses = false;
  auto r = analyze({(dir / "k.cu").string(), src.code()}, o);
  for (const auto& f : r.findings) CHECK_MESSAGE(f.severity != Severity::Error, f.message);
  CHECK(r.toolchain.compile_command_source == "compile_commands.json: " + (dir / "compile_commands.json").string());
  CHECK(r.toolchain.requested_arch == "sm_80");
  CHECK(r.toolchain.parse_arch == "sm_80");
  REQUIRE(r.model.functions.size() == 1);
  REQUIRE(r.model.functions[0].accesses.size() == 1);
  CHECK(to_string(r.model.functions[0].accesses[0].index) == "threadIdx.x * 144");
  fs::remove_all(dir);
}

TEST_CASE("a bad compile_commands.json is a finding; analysis falls back to defaults") {
  fs::path dir = fs::temp_directory_path() / "warplens_cdb_bad";
  fs::create_directories(dir);
  std::ofstream(dir / "compile_commands.json") << "[{\"directory\": ";
  AnalysisOptions o;
  o.run_static_analyses = false;
  auto r = analyze({(dir / "k.cu").string(), "__global__ void k(float* a) { a[threadIdx.x] = 1; }\n"}, o);
  bool found = false;
  for (const auto& f : r.findings)
    if (f.code == "compile-command") {
      found = true;
      CHECK(f.severity == Severity::Warning);
      CHECK(f.message.find("invalid JSON") != std::string::npos);
    }
  CHECK(found);
  CHECK(r.parsed);
  CHECK(r.toolchain.compile_command_source == "defaults");
  CHECK(r.model.functions.size() == 1);
  fs::remove_all(dir);
}

TEST_CASE("a header is analysed in the context of the .cu that includes it") {
  fs::path dir = fs::temp_directory_path() / "warplens_header_context";
  fs::remove_all(dir);
  fs::create_directories(dir);
  // The header relies on a macro and a type the .cu defines before including it.
  std::ofstream(dir / "main.cu") << "#define BLOCK 64\nstruct Pair { float a, b; };\n#include \"kernels.cuh\"\n"
                                    "int main() { scale<<<1, BLOCK>>>(nullptr); }\n";
  std::ofstream(dir / "compile_commands.json")
      << R"([{"directory": ")" << dir.string() << R"(", "file": "main.cu", "arguments": ["nvcc", "-DEXTRA=2", "-c", "main.cu"]}])";
  Annotations header(R"cu(
#pragma once
__global__ void scale(Pair* p) { $acc[[p[threadIdx.x * EXTRA + BLOCK].b]] = 0; }
)cu");
  AnalysisOptions o;
  o.run_static_analyses = false;
  auto r = analyze({(dir / "kernels.cuh").string(), header.code()}, o);
  for (const auto& f : r.findings) CHECK_MESSAGE(f.severity != Severity::Error, f.message);
  CHECK(r.toolchain.compile_command_source.find("included from " + (dir / "main.cu").string()) != std::string::npos);
  REQUIRE(r.model.functions.size() == 1);
  const auto& a = r.model.functions[0].accesses.at(0);
  CHECK(a.range == header.range("acc"));
  CHECK(to_string(a.byte_offset) == "(threadIdx.x * 2 + 64) * 8 + 4");
  CHECK(r.model.launches.empty());  // launches in main.cu are not the header's
  fs::remove_all(dir);
}

TEST_CASE("a lone header parses as CUDA") {
  fs::path dir = fs::temp_directory_path() / "warplens_lone_header";
  fs::create_directories(dir);
  std::ofstream(dir / "compile_commands.json") << "[]";
  AnalysisOptions o;
  o.run_static_analyses = false;
  auto r = analyze({(dir / "util.cuh").string(),
                    "#pragma once\n__device__ inline float twice(const float* p) { return 2 * p[threadIdx.x]; }\n"},
                   o);
  CHECK(r.findings.empty());
  REQUIRE(r.model.functions.size() == 1);
  CHECK(r.model.functions[0].accesses.size() == 1);
  fs::remove_all(dir);
}

TEST_CASE("cancellation stops the parse") {
  std::stop_source stop;
  stop.request_stop();
  AnalysisOptions o;
  auto r = analyze({"/tmp/x.cu", "__global__ void k() {}"}, o, stop.get_token());
  CHECK(r.cancelled);
  CHECK(r.model.functions.empty());

  // Mid-parse: a stop requested from another thread ends the parse early.
  std::stop_source later;
  std::string big;
  for (int i = 0; i < 3000; ++i)
    big += "__global__ void k" + std::to_string(i) + "(float* a) { a[threadIdx.x] = " + std::to_string(i) + "; }\n";
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    later.request_stop();
  });
  auto r2 = parse_translation_unit({"/tmp/big.cu", big}, o, later.get_token());
  canceller.join();
  CHECK(r2.cancelled);
  CHECK(r2.model.functions.size() < 3000);
}

TEST_CASE("analyses run concurrently on several threads") {
  const char* code = R"cu(
__global__ void k(float* a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) a[i] *= 2.0f;
}
int main() { k<<<4, 128>>>(nullptr, 1 << 20); }
)cu";
  std::string expected = parse_snippet(code).dump();
  std::vector<std::string> dumps(3);
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t)
    threads.emplace_back([&, t] { dumps[t] = parse_snippet(code, t == 2 ? Toolchain::Prelude : Toolchain::Cuda).dump(); });
  for (auto& th : threads) th.join();
  for (const auto& d : dumps) CHECK(d == expected);
}
