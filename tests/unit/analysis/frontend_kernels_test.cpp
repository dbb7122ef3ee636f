// Functions in the model: kernels, device functions, signatures, ranges,
// parameters, __launch_bounds__, templates.
#include <doctest/doctest.h>

#include "tests/unit/analysis/frontend_snippets.h"

using namespace warplens;
using namespace warplens::testing;

TEST_CASE("kernels and the device functions they call, with signatures and ranges") {
  auto s = parse_snippet(R"cu(
#include <cuda_runtime.h>
$helper_def[[__device__ float $helper_name[[scale]](float x, int k) { return x * k; }]]

$kernel_def[[$insert^__global__ void $kernel_name[[axpy]]($p0[[const float* __restrict__ x]], $p1[[float* y]], $p2[[int n]]) $body[[{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = scale(x[i], 2);
}]]]]

__host__ __device__ int both(int a) { return a + 1; }
void host_only(float* p) { p[0] = 1; }
)cu");
  REQUIRE_MESSAGE(s.clang_errors().empty(), s.clang_errors());
  REQUIRE(s.result.parsed);
  const auto& model = s.result.model;
  CHECK(model.file == s.path);
  CHECK(model.kernels().size() == 1);

  const Function& k = s.function("axpy");
  CHECK(k.kind == FunctionKind::Kernel);
  CHECK(k.key == "axpy(const float *__restrict, float *, int)");
  CHECK(k.signature == "void axpy(const float *__restrict, float *, int)");
  CHECK(k.range == s.source.range("kernel_def"));
  CHECK(k.name_range == s.source.range("kernel_name"));
  CHECK(k.body_range == s.source.range("body"));
  CHECK(k.declaration_start == Range{s.source.point("insert"), s.source.point("insert")});
  CHECK_FALSE(k.is_template);
  CHECK_FALSE(k.launch_bounds);

  REQUIRE(k.params.size() == 3);
  CHECK(k.params[0].name == "x");
  CHECK(k.params[0].range == s.source.range("p0"));
  CHECK(k.params[0].is_pointer);
  CHECK(k.params[0].pointee_type == "float");
  CHECK(k.params[0].pointee_bytes == 4);
  CHECK(k.params[0].pointee_const);
  CHECK(k.params[0].is_restrict);
  CHECK(k.params[1].range == s.source.range("p1"));
  CHECK_FALSE(k.params[1].pointee_const);
  CHECK_FALSE(k.params[1].is_restrict);
  CHECK(k.params[2].range == s.source.range("p2"));
  CHECK_FALSE(k.params[2].is_pointer);
  CHECK(k.params[2].type == "int");

  const Function& h = s.function("scale");
  CHECK(h.kind == FunctionKind::Device);
  CHECK(h.range == s.source.range("helper_def"));
  CHECK(h.name_range == s.source.range("helper_name"));
  CHECK(s.function("both").kind == FunctionKind::HostDevice);
  CHECK_THROWS(s.function("host_only"));  // host code is not in the model

  REQUIRE(k.calls.size() == 1);
  CHECK(k.calls[0].callee == "scale");
  CHECK(k.calls[0].callee_key == h.key);
}

TEST_CASE("__launch_bounds__ values and the range to edit") {
  auto s = parse_snippet(R"cu(
#define THREADS 256
__global__ void $lb1[[__launch_bounds__(THREADS, 2)]] one(float* p) { p[threadIdx.x] = 0; }
$lb2[[__launch_bounds__(128)]] __global__ void two(float* p) { p[threadIdx.x] = 0; }
template <int N> __global__ void $lb3[[__launch_bounds__(N * 2)]] three(float* p) { p[threadIdx.x] = 0; }
template __global__ void three<64>(float*);
)cu");
  REQUIRE_MESSAGE(s.clang_errors().empty(), s.clang_errors());
  const auto& one = s.function("one");
  REQUIRE(one.launch_bounds);
  CHECK(one.launch_bounds->max_threads == 256);
  CHECK(one.launch_bounds->min_blocks == 2);
  CHECK(one.launch_bounds->spelling == "__launch_bounds__(THREADS, 2)");
  CHECK(one.launch_bounds->range == s.source.range("lb1"));
  const auto& two = s.function("two");
  REQUIRE(two.launch_bounds);
  CHECK(two.launch_bounds->max_threads == 128);
  CHECK_FALSE(two.launch_bounds->min_blocks);
  CHECK(two.launch_bounds->range == s.source.range("lb2"));
  const auto& three = s.function("three");
  REQUIRE(three.launch_bounds);
  CHECK(three.launch_bounds->max_threads == 128);
  CHECK(three.launch_bounds->range == s.source.range("lb3"));
}

TEST_CASE("templates: instantiations are analysed, the pattern only when never instantiated") {
  auto s = parse_snippet(R"cu(
template <typename T, int TILE>
__global__ void copy(const T* in, T* out) {
  __shared__ T buf[TILE];
  buf[threadIdx.x] = in[blockIdx.x * TILE + threadIdx.x];
  __syncthreads();
  out[blockIdx.x * TILE + threadIdx.x] = buf[TILE - 1 - threadIdx.x];
}
template <typename T> __global__ void never_used(T* p) { p[threadIdx.x] = T(); }
int main() {
  float* f; double* d;
  copy<float, 128><<<1, 128>>>(f, f);
  copy<double, 64><<<1, 64>>>(d, d);
}
)cu");
  REQUIRE_MESSAGE(s.clang_errors().empty(), s.clang_errors());
  const auto& fl = s.function("copy<float, 128>(const float *, float *)");
  const auto& db = s.function("copy<double, 64>(const double *, double *)");
  CHECK(fl.template_args == "<float, 128>");
  CHECK(db.template_args == "<double, 64>");
  CHECK_FALSE(fl.is_template);
  CHECK(fl.range == db.range);  // both point at the one definition
  REQUIRE(fl.shared_arrays.size() == 1);
  CHECK(fl.shared_arrays[0].dims == std::vector<std::int64_t>{128});
  CHECK(fl.shared_arrays[0].element_bytes == 4);
  CHECK(db.shared_arrays[0].dims == std::vector<std::int64_t>{64});
  CHECK(db.shared_arrays[0].element_bytes == 8);
  REQUIRE(fl.accesses.size() == 4);
  CHECK(to_string(fl.accesses[2].index) == "127 - threadIdx.x");
  CHECK(to_string(db.accesses[2].index) == "63 - threadIdx.x");
  CHECK(db.accesses[0].element_bytes == 8);

  const auto& never = s.function("never_used");
  CHECK(never.is_template);
  REQUIRE(never.accesses.size() == 1);
  CHECK(never.accesses[0].element_bytes == 0);  // dependent: unknown
  CHECK(to_string(never.accesses[0].index) == "threadIdx.x");
  // Only these three functions: no duplicate pattern of `copy`.
  CHECK(s.result.model.functions.size() == 3);
}

TEST_CASE("device functions: member functions and helpers, not lambdas or host code") {
  auto s = parse_snippet(R"cu(
struct Acc {
  float* data;
  __device__ void add(int i, float v) { data[i] += v; }
};
__device__ __forceinline__ int lane() { return threadIdx.x & 31; }
__global__ void k(Acc acc) {
  auto f = [] __device__ (int x) { return x * 2; };
  acc.add(lane(), f(3));
}
)cu",
                         Toolchain::Cuda, [] {
                           AnalysisOptions o;
                           o.extra_args = {"-D__CUDACC_EXTENDED_LAMBDA__"};
                           return o;
                         }());
  REQUIRE_MESSAGE(s.clang_errors().empty(), s.clang_errors());
  CHECK(s.function("Acc::add(int, float)").kind == FunctionKind::Device);
  CHECK(s.function("lane").kind == FunctionKind::Device);
  CHECK(s.result.model.functions.size() == 3);
  const auto& k = s.function("k");
  REQUIRE(k.calls.size() == 2);
  // lane() is called first (argument evaluation), then Acc::add.
  bool saw_add = false;
  for (const auto& c : k.calls)
    if (c.callee == "add") {
      saw_add = true;
      REQUIRE(c.args.size() == 2);
      CHECK(to_string(c.args[0]) == "threadIdx.x & 31");  // lane() inlined
    }
  CHECK(saw_add);
}
