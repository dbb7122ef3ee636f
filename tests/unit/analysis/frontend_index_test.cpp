// Index expressions: how source arithmetic becomes the symbolic IR the warp
// model evaluates. Each marked access's index is rendered and compared.
#include <doctest/doctest.h>

#include "tests/unit/analysis/frontend_snippets.h"
#include "tests/support/analysis_requirements.h"

using namespace warplens;
using namespace warplens::testing;

namespace {

// The rendered index of the (single) access at each named range.
void check_indices(const Snippet& s, const char* function,
                   std::initializer_list<std::pair<const char*, const char*>> expected) {
  const Function& f = s.function(function);
  for (const auto& [name, index] : expected) {
    CAPTURE(name);
    auto at = s.accesses_at(f, s.source.range(name));
    REQUIRE_MESSAGE(!at.empty(), s.dump());
    CHECK(to_string(at.front()->index) == index);
  }
}

const Symbol kTx{SymbolKind::ThreadIdx, 0, "", false};
const Symbol kTy{SymbolKind::ThreadIdx, 1, "", false};

}  // namespace

TEST_CASE("builtins, literals, constants, macros and template arguments") {
  auto s = parse_snippet(R"cu(
#define BLOCK 128
constexpr int kStride = 4;
enum { kPad = 1 };
template <int W>
__global__ void k(float* a, int n) {
  const int local_const = 3;
  $tx[[a[threadIdx.x]]] = 0;
  $all[[a[threadIdx.z * blockDim.y + threadIdx.y + blockIdx.x * gridDim.x]]] = 0;
  $macro[[a[BLOCK * blockIdx.x + threadIdx.x]]] = 0;
  $cexpr[[a[kStride * threadIdx.x + kPad + local_const]]] = 0;
  $tmpl[[a[W * threadIdx.y + sizeof(double)]]] = 0;
  $warp[[a[threadIdx.x % warpSize + n]]] = 0;
}
template __global__ void k<16>(float*, int);
)cu");
  REQUIRE_MESSAGE(s.clang_errors().empty(), s.clang_errors());
  check_indices(s, "k", {{"tx", "threadIdx.x"},
                         {"all", "threadIdx.z * blockDim.y + threadIdx.y + blockIdx.x * gridDim.x"},
                         {"macro", "128 * blockIdx.x + threadIdx.x"},
                         {"cexpr", "4 * threadIdx.x + 4"},
                         {"tmpl", "16 * threadIdx.y + 8"},
                         {"warp", "threadIdx.x % warpSize + n"}});
}

TEST_CASE("locals are replaced by their values, reassignments tracked in order") {
  auto s = parse_snippet(R"cu(
__global__ void k(float* a, int n, int cols) {
  int tid = threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int idx = row * cols + tid;
  $first[[a[idx]]] = 0;
  idx += n;
  $second[[a[idx]]] = 0;
  idx = 2 * tid;
  idx <<= 1;
  $third[[a[idx]]] = 0;
  unsigned u = tid;
  u++;
  $fourth[[a[u]]] = 0;
}
)cu");
  REQUIRE_MESSAGE(s.clang_errors().empty(), s.clang_errors());
  check_indices(s, "k", {{"first", "(blockIdx.y * blockDim.y + threadIdx.y) * cols + threadIdx.x"},
                         {"second", "(blockIdx.y * blockDim.y + threadIdx.y) * cols + threadIdx.x + n"},
                         {"third", "2 * threadIdx.x << 1"},
                         {"fourth", "threadIdx.x + 1"}});
  // The affine view: coefficients of threadIdx.x / threadIdx.y.
  const Function& f = s.function("k");
  auto p = to_polynomial(s.accesses_at(f, s.source.range("first")).front()->index);
  REQUIRE(p);
  CHECK(p->coefficient_of(kTx)->to_string() == "1");
  CHECK(p->coefficient_of(kTy)->to_string() == "cols");
  auto third = to_polynomial(s.accesses_at(f, s.source.range("third")).front()->index);
  REQUIRE(third);
  CHECK(third->coefficient_of(kTx)->to_string() == "4");
}

TEST_CASE("values chosen by branches become selects; unknowns keep their uniformity") {
  auto s = parse_snippet(R"cu(
__global__ void k(float* a, const int* idx, int n, bool flip) {
  int i = threadIdx.x;
  int j;
  if (flip) j = n - 1 - i; else j = i;
  $sel[[a[j]]] = 0;
  int m = i;
  if (i > 16) m = 0;
  $one_sided[[a[m]]] = 0;
  int q = (i < n) ? i : n;
  $ternary[[a[q]]] = 0;
  $minmax[[a[min(i, n) + max(n, 0)]]] = 0;
  $indirect[[a[idx[i]]]] = 0;
  $uniform_load[[a[idx[blockIdx.x] + i]]] = 0;
  float f = a[0];
  $float_cast[[a[(int)(f * 2.0f)]]] = 0;
  $bits[[a[(i & 31) | (i >> 5) ^^ 1]]] = 0;
}
)cu");
  REQUIRE_MESSAGE(s.clang_errors().empty(), s.clang_errors());
  check_indices(s, "k", {{"sel", "(flip ? n - 1 - threadIdx.x : threadIdx.x)"},
                         {"one_sided", "(threadIdx.x > 16 ? 0 : threadIdx.x)"},
                         {"ternary", "(threadIdx.x < n ? threadIdx.x : n)"},
                         {"minmax", "min(threadIdx.x, n) + max(n, 0)"},
                         {"indirect", "idx[threadIdx.x]"},
                         {"uniform_load", "idx[blockIdx.x] + threadIdx.x"},
                         {"float_cast", "(int)(f * 2.0f)"},
                         {"bits", "threadIdx.x & 31 | threadIdx.x >> 5 ^ 1"}});
  const Function& f = s.function("k");
  auto index = [&](const char* name) { return s.accesses_at(f, s.source.range(name)).front()->index; };
  CHECK(is_indirect(index("indirect")));
  CHECK_FALSE(is_indirect(index("uniform_load")));
  CHECK_FALSE(is_lane_varying(index("float_cast")));  // f = a[0]: one address for the warp
}

TEST_CASE("cooperative groups and helper functions" * needs("cuda-toolkit")) {
  auto s = parse_snippet(R"cu(
#include <cooperative_groups.h>

using warplens::test::needs;
namespace cg = cooperative_groups;
__device__ int flat(int r, int c, int ld) { return r * ld + c; }
__device__ int lane_id() { int l; asm("mov.u32 %0, %%laneid;" : "=r"(l)); return l; }
__global__ void k(float* a, int ld) {
  cg::thread_block block = cg::this_thread_block();
  auto warp = cg::tiled_partition<32>(block);
  $rank[[a[block.thread_rank()]]] = 0;
  $index[[a[block.thread_index().y * ld + block.group_index().x]]] = 0;
  $tile[[a[warp.thread_rank() + 32 * warp.meta_group_rank()]]] = 0;
  $helper[[a[flat(threadIdx.y, threadIdx.x, ld)]]] = 0;
  $asm[[a[lane_id()]]] = 0;
}
)cu");
  REQUIRE_MESSAGE(s.clang_errors().empty(), s.clang_errors());
  check_indices(s, "k", {{"rank", "threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y"},
                         {"index", "threadIdx.y * ld + blockIdx.x"},
                         {"helper", "threadIdx.y * ld + threadIdx.x"}});
  const Function& f = s.function("k");
  auto tile = s.accesses_at(f, s.source.range("tile")).front()->index;
  CHECK(to_string(tile).find("% 32") != std::string::npos);
  auto lane = s.accesses_at(f, s.source.range("asm")).front()->index;
  CHECK(is_lane_varying(lane));  // inline asm: per lane
}

TEST_CASE("uniformity of values that are not affine") {
  auto s = parse_snippet(R"cu(
__global__ void k(float* a, const float* w, int n) {
  float scale = w[blockIdx.x];                 // same address for the warp: uniform
  int bucket = (int)(scale * n);
  $uniform[[a[bucket + threadIdx.x]]] = 0;
  float mine = w[threadIdx.x];                 // per lane
  int b2 = (int)(mine * n);
  $varying[[a[b2]]] = 0;
  int shuffled = __shfl_down_sync(0xffffffff, (int)threadIdx.x, 1);
  $shfl[[a[shuffled]]] = 0;
  int bcast = __shfl_sync(0xffffffff, b2, 0);
  $bcast[[a[bcast]]] = 0;
}
)cu");
  REQUIRE_MESSAGE(s.clang_errors().empty(), s.clang_errors());
  const Function& f = s.function("k");
  auto index = [&](const char* name) { return s.accesses_at(f, s.source.range(name)).front()->index; };
  auto p = to_polynomial(index("uniform"));
  CHECK_FALSE(p);  // an opaque term...
  CHECK(to_string(index("uniform")) == "(int)(scale * n) + threadIdx.x");
  auto u = index("uniform")->operands[0];
  CHECK_FALSE(is_lane_varying(u));  // ...that is warp-uniform
  CHECK(is_lane_varying(index("varying")));
  CHECK(is_lane_varying(index("shfl")));
  CHECK_FALSE(is_lane_varying(index("bcast")));
}

TEST_CASE("values built from shared subexpressions stay small") {
  // Each step uses h twice: the value is a small DAG but an exponential tree.
  std::string code = "__global__ void k(int* a) {\n  unsigned h = threadIdx.x;\n";
  for (int i = 0; i < 80; ++i) code += "  h = h * 31 + (h >> 3);\n";
  code += "  [[a[h % 1024]]] = 1;\n}\n";
  auto s = parse_snippet(code);
  REQUIRE_MESSAGE(s.clang_errors().empty(), s.clang_errors());
  const auto& a = s.access(s.function("k"), s.source.range(), AccessKind::Store);
  CHECK(is_lane_varying(a.index));  // still known to depend on threadIdx.x
  CHECK(to_string(a.index).size() < 200);
}
