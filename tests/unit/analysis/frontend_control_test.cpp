// Control flow: conditions and guards, early exits, loops and induction
// variables, barriers, calls.
#include <doctest/doctest.h>

#include "tests/unit/analysis/frontend_snippets.h"
#include "tests/support/analysis_requirements.h"

using namespace warplens;
using namespace warplens::testing;
using warplens::test::needs;

namespace {
const Condition& condition_of(const Function& f, const Guard& g) { return f.conditions.at(g.condition); }
}  // namespace

TEST_CASE("if/else guards, nesting and condition ranges") {
  auto s = parse_snippet(R"cu(
__global__ void k(float* a, int n) {
  int i = threadIdx.x;
  if ($c0[[i < n]]) {
    $then[[a[i]]] = 1;
    if ($c1[[blockIdx.x == 0]]) $nested[[a[0]]] = 2;
  } else {
    $else[[a[n]]] = 3;
  }
  $after[[a[1]]] = 4;
  float v = $tern_c[[i > 4]] ? $tern_t[[a[i]]] : 0.0f;
  if ($sc_lhs[[i < n]] && $sc[[a[i]]] > 0) a[2] = v;
}
)cu");
  REQUIRE_MESSAGE(s.clang_errors().empty(), s.clang_errors());
  const Function& f = s.function("k");
  const auto& then = s.access(f, s.source.range("then"), AccessKind::Store);
  REQUIRE(then.guards.size() == 1);
  const Condition& c0 = condition_of(f, then.guards[0]);
  CHECK(then.guards[0].taken);
  CHECK(c0.kind == ConditionKind::If);
  CHECK(c0.spelling == "i < n");
  CHECK(c0.range == s.source.range("c0"));
  CHECK(to_string(c0.expr) == "threadIdx.x < n");
  CHECK(is_lane_varying(c0.expr));
  CHECK(c0.parent == -1);

  const auto& nested = s.access(f, s.source.range("nested"), AccessKind::Store);
  REQUIRE(nested.guards.size() == 2);
  const Condition& c1 = condition_of(f, nested.guards[1]);
  CHECK(c1.range == s.source.range("c1"));
  CHECK_FALSE(is_lane_varying(c1.expr));
  CHECK(c1.parent == then.guards[0].condition);

  const auto& els = s.access(f, s.source.range("else"), AccessKind::Store);
  REQUIRE(els.guards.size() == 1);
  CHECK(els.guards[0] == Guard{then.guards[0].condition, false});
  CHECK(s.access(f, s.source.range("after"), AccessKind::Store).guards.empty());

  const auto& tern = s.access(f, s.source.range("tern_t"), AccessKind::Load);
  REQUIRE(tern.guards.size() == 1);
  CHECK(condition_of(f, tern.guards[0]).kind == ConditionKind::Ternary);
  CHECK(condition_of(f, tern.guards[0]).range == s.source.range("tern_c"));

  const auto& sc = s.access(f, s.source.range("sc"), AccessKind::Load);
  REQUIRE(sc.guards.size() == 1);
  CHECK(condition_of(f, sc.guards[0]).kind == ConditionKind::ShortCircuit);
  CHECK(condition_of(f, sc.guards[0]).range == s.source.range("sc_lhs"));
  CHECK(sc.guards[0].taken);
}

TEST_CASE("early exits guard the rest of the function") {
  auto s = parse_snippet(R"cu(
__global__ void k(float* a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if ($exit[[i >= n]]) return;
  $guarded[[a[i]]] = 0;
  if (blockIdx.y > 0) {
    if ($inner[[threadIdx.y > 2]]) return;
    $both[[a[1]]] = 0;
  }
  __syncthreads();
}
)cu");
  REQUIRE_MESSAGE(s.clang_errors().empty(), s.clang_errors());
  const Function& f = s.function("k");
  const auto& g = s.access(f, s.source.range("guarded"), AccessKind::Store);
  REQUIRE(g.guards.size() == 1);
  const Condition& exit = condition_of(f, g.guards[0]);
  CHECK(exit.kind == ConditionKind::EarlyExit);
  CHECK_FALSE(g.guards[0].taken);
  CHECK(exit.range == s.source.range("exit"));

  const auto& both = s.access(f, s.source.range("both"), AccessKind::Store);
  REQUIRE(both.guards.size() == 3);  // !exit, blockIdx.y > 0, !inner
  CHECK(condition_of(f, both.guards[2]).range == s.source.range("inner"));
  CHECK_FALSE(both.guards[2].taken);

  // The barrier runs only on lanes that did not leave: !exit and
  // !(blockIdx.y > 0 && threadIdx.y > 2) -- the nested exit is lifted.
  REQUIRE(f.barriers.size() == 1);
  const Barrier& b = f.barriers[0];
  REQUIRE(b.guards.size() == 2);
  CHECK(b.guards[0] == g.guards[0]);
  const Condition& lifted = condition_of(f, b.guards[1]);
  CHECK_FALSE(b.guards[1].taken);
  CHECK(lifted.kind == ConditionKind::EarlyExit);
  CHECK(to_string(lifted.expr) == "blockIdx.y > 0 && threadIdx.y > 2");
  CHECK(is_lane_varying(lifted.expr));
}

TEST_CASE("loops: grid-stride, uniform counted loops, reductions, while, nesting, unroll") {
  auto s = parse_snippet(R"cu(
__global__ void k(const float* in, float* out, int n, int K) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    $grid[[out[i]]] = $grid_in[[in[i]]];
  float acc = 0;
  #pragma unroll 4
  for (int k = 0; k < K; ++k) {
    acc += $row[[in[threadIdx.x * K + k]]];
    #pragma unroll
    for (int j = 0; j < 4; j++) acc += $nested[[in[k * 4 + j]]];
  }
  __shared__ float s[256];
  for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (threadIdx.x < stride) $red[[s[threadIdx.x + stride]]] += 1;
    __syncthreads();
  }
  int w = threadIdx.x;
  while (w < n) {
    $wh[[out[w]]] = acc;
    w += 32;
  }
  int p = threadIdx.x;
  for (int t = 0; t < 8; ++t) {
    $sec[[out[p]]] = 0;
    p += 64;
  }
}
)cu");
  REQUIRE_MESSAGE(s.clang_errors().empty(), s.clang_errors());
  const Function& f = s.function("k");
  auto loop_of = [&](const char* access) -> const Loop& {
    auto at = s.accesses_at(f, s.source.range(access));
    REQUIRE(!at.empty());
    REQUIRE(!at.front()->loops.empty());
    return f.loops.at(at.front()->loops.back());
  };
  auto index = [&](const char* access) { return to_string(s.accesses_at(f, s.source.range(access)).front()->index); };

  const Loop& grid = loop_of("grid");
  CHECK(grid.induction_variable == "i");
  CHECK(to_string(grid.init) == "blockIdx.x * blockDim.x + threadIdx.x");
  CHECK(to_string(grid.step) == "blockDim.x * gridDim.x");
  CHECK_FALSE(grid.uniform_trip);
  CHECK(index("grid") == "blockIdx.x * blockDim.x + threadIdx.x + blockDim.x * gridDim.x * i#iter");
  CHECK(f.conditions.at(grid.condition).kind == ConditionKind::LoopExit);
  CHECK(s.accesses_at(f, s.source.range("grid")).front()->guards.size() == 1);

  const Loop& row = loop_of("row");
  CHECK(row.induction_variable == "k");
  CHECK(row.uniform_trip);
  CHECK(row.unroll == 4);
  CHECK(index("row") == "threadIdx.x * K + k#iter");
  const Loop& nested = loop_of("nested");
  CHECK(nested.parent == s.accesses_at(f, s.source.range("row")).front()->loops.back());
  CHECK(nested.unroll == 0);
  CHECK(index("nested") == "k#iter * 4 + j#iter");
  CHECK(s.accesses_at(f, s.source.range("nested")).front()->loops.size() == 2);

  const Loop& red = loop_of("red");
  CHECK(red.induction_variable == "stride");
  CHECK_FALSE(red.step);  // halving: not affine
  CHECK(red.uniform_trip);
  // The halving walk: stride after n halvings, n sampled by the warp model.
  CHECK(index("red") == "threadIdx.x + stride{blockDim.x / 2; stride = stride#prev >> 1; stride@L13#n}");
  auto red_idx = s.accesses_at(f, s.source.range("red")).front()->index;
  CHECK_FALSE(is_lane_varying(red_idx->operands[1]));  // stride is warp-uniform

  const Loop& wh = loop_of("wh");
  CHECK(wh.induction_variable == "w");
  CHECK(to_string(wh.step) == "32");
  CHECK(index("wh") == "threadIdx.x + 32 * w#iter");

  CHECK(index("sec") == "threadIdx.x + 64 * t#iter");

  // The reduction's barrier is in the loop, unguarded by the `if`.
  REQUIRE(f.barriers.size() == 1);
  CHECK(f.barriers[0].loops.size() == 1);
  REQUIRE(f.barriers[0].guards.size() == 1);
  CHECK(f.conditions.at(f.barriers[0].guards[0].condition).kind == ConditionKind::LoopExit);
}

TEST_CASE("loop-carried values: unknown after the loop, uniformity by fixed point") {
  auto s = parse_snippet(R"cu(
__global__ void k(float* a, const int* next, int n) {
  int u = 0, v = 0, x = 0;
  for (int it = 0; it < n; ++it) {
    u = u * 2 + 1;           // uniform, not affine
    v = v + threadIdx.x;     // per lane
    x = next[x];             // data-dependent chase
    $in_loop[[a[u + v]]] = 0;
  }
  $after[[a[u]]] = 0;
  $after_v[[a[v]]] = 0;
}
)cu");
  REQUIRE_MESSAGE(s.clang_errors().empty(), s.clang_errors());
  const Function& f = s.function("k");
  auto index = [&](const char* access) { return s.accesses_at(f, s.source.range(access)).front()->index; };
  // After the updates in the body: u and v as of this iteration's start (u
  // after n updates of its own: a Recur; v per lane, following the counter).
  CHECK(to_string(index("in_loop")) == "u{0; u = u#prev * 2 + 1; u@L4#n} * 2 + 1 + (threadIdx.x * it#iter + threadIdx.x)");
  CHECK_FALSE(is_lane_varying(index("in_loop")->operands[0]));
  CHECK(is_lane_varying(index("in_loop")->operands[1]));
  CHECK_FALSE(is_lane_varying(index("after")));
  CHECK(is_lane_varying(index("after_v")));
}

TEST_CASE("returns inside loops and switch cases guard what follows") {
  auto s = parse_snippet(R"cu(
__global__ void k(float* a, const int* flags, int n, int mode) {
  for (int i = 0; i < n; ++i)
    if (flags[i * 32 + threadIdx.x]) return;
  __syncthreads();
  switch (mode) {
    case 0: $case0[[a[threadIdx.x]]] = 0; break;
    case 1:
    case 2: $case12[[a[threadIdx.x + 1]]] = 0; break;
    default: $dflt[[a[0]]] = 1;
  }
}
)cu");
  REQUIRE_MESSAGE(s.clang_errors().empty(), s.clang_errors());
  const Function& f = s.function("k");
  REQUIRE(f.barriers.size() == 1);
  REQUIRE(f.barriers[0].guards.size() == 1);
  const Condition& c = f.conditions.at(f.barriers[0].guards[0].condition);
  CHECK(c.kind == ConditionKind::EarlyExit);
  CHECK(is_lane_varying(c.expr));  // lanes leave the loop on their own flags

  auto case_cond = [&](const char* access) {
    const auto& a = *s.accesses_at(f, s.source.range(access)).front();
    REQUIRE(a.guards.size() == 2);  // the loop's early exit, then the case
    const Condition& cc = f.conditions.at(a.guards[1].condition);
    CHECK(cc.kind == ConditionKind::Switch);
    return to_string(cc.expr);
  };
  CHECK(case_cond("case0") == "mode == 0");
  CHECK(case_cond("case12") == "mode == 1 || mode == 2");
  CHECK(case_cond("dflt") == "mode != 0 && mode != 1 && mode != 2");
}

TEST_CASE("barriers: __syncthreads family, __syncwarp, cooperative groups, asm" * needs("cuda-toolkit")) {
  auto s = parse_snippet(R"cu(
#include <cooperative_groups.h>

namespace cg = cooperative_groups;
__global__ void k(int* a) {
  cg::thread_block block = cg::this_thread_block();
  auto warp = cg::tiled_partition<32>(block);
  $st[[__syncthreads()]];
  int c = $cnt[[__syncthreads_count(a[threadIdx.x] > 0)]];
  $sw[[__syncwarp()]];
  $blk[[block.sync()]];
  $cgs[[cg::sync(block)]];
  $tile[[warp.sync()]];
  if (threadIdx.x < 16) $cond[[__syncthreads()]];
  $asm[[asm volatile("bar.sync 0;")]];
  a[0] = c;
}
)cu");
  REQUIRE_MESSAGE(s.clang_errors().empty(), s.clang_errors());
  const Function& f = s.function("k");
  auto barrier_at = [&](const char* name) -> const Barrier& {
    for (const auto& b : f.barriers)
      if (b.range == s.source.range(name)) return b;
    FAIL("no barrier at " << name << "\n" << s.dump());
    return f.barriers.front();
  };
  CHECK(barrier_at("st").kind == BarrierKind::SyncThreads);
  CHECK(barrier_at("cnt").kind == BarrierKind::SyncThreads);
  CHECK(barrier_at("sw").kind == BarrierKind::SyncWarp);
  CHECK(barrier_at("blk").kind == BarrierKind::CooperativeGroup);
  CHECK(barrier_at("cgs").kind == BarrierKind::CooperativeGroup);
  CHECK(barrier_at("tile").kind == BarrierKind::SyncWarp);
  CHECK(barrier_at("asm").kind == BarrierKind::SyncThreads);
  const Barrier& cond = barrier_at("cond");
  REQUIRE(cond.guards.size() == 1);
  CHECK(is_lane_varying(f.conditions.at(cond.guards[0].condition).expr));
  CHECK(f.barriers.size() == 8);
}

TEST_CASE("calls to device functions carry their arguments in the caller's terms") {
  auto s = parse_snippet(R"cu(
__device__ void store_row(float* dst, int row, int ld, float v) { dst[row * ld + threadIdx.x] = v; }
__global__ void k(float* out, int ld) {
  __shared__ float tile[16][17];
  for (int r = 0; r < 16; ++r)
    if (threadIdx.y == 0) $call[[store_row(out + blockIdx.x * 16 * ld, r, ld, 1.0f)]];
  store_row(&tile[0][0], threadIdx.y, 17, 2.0f);
}
)cu");
  REQUIRE_MESSAGE(s.clang_errors().empty(), s.clang_errors());
  const Function& f = s.function("k");
  REQUIRE(f.calls.size() == 2);
  const CallSite& c = f.calls[0];
  CHECK(c.range == s.source.range("call"));
  CHECK(c.callee_key == "store_row(float *, int, int, float)");
  REQUIRE(c.args.size() == 4);
  CHECK(to_string(c.args[1]) == "r#iter");
  CHECK(to_string(c.args[2]) == "ld");
  REQUIRE(c.pointer_args[0]);
  CHECK(c.pointer_args[0]->base == "out");
  CHECK(c.pointer_args[0]->base_param == 0);
  CHECK(c.pointer_args[0]->space == MemorySpace::Global);
  CHECK(to_string(c.pointer_args[0]->byte_offset) == "blockIdx.x * 16 * ld * 4");
  CHECK(c.loops.size() == 1);
  CHECK(c.guards.size() == 2);
  REQUIRE(f.shared_arrays.size() == 1);
  CHECK(f.shared_arrays[0].address_escapes);  // &tile[0][0] passed on
  const CallSite& c2 = f.calls[1];
  REQUIRE(c2.pointer_args[0]);
  CHECK(c2.pointer_args[0]->shared_array == "tile");
  CHECK(to_string(c2.pointer_args[0]->byte_offset) == "0");
  const Function& callee = s.function("store_row");
  REQUIRE(callee.accesses.size() == 1);
  CHECK(to_string(callee.accesses[0].index) == "row * ld + threadIdx.x");
}

TEST_CASE("side effects in conditions, and goto targets") {
  auto s = parse_snippet(R"cu(
__global__ void k(float* a, int n) {
  int j = threadIdx.x;
  if ($cond[[++j < n]]) $after_inc[[a[j]]] = 0;
  int m = 0;
again:
  $at_label[[a[m]]] = 1;
  if (++m < 4) goto again;
}
)cu");
  REQUIRE_MESSAGE(s.clang_errors().empty(), s.clang_errors());
  const Function& f = s.function("k");
  const auto& after = s.access(f, s.source.range("after_inc"), AccessKind::Store);
  CHECK(to_string(after.index) == "threadIdx.x + 1");
  REQUIRE(after.guards.size() == 1);
  CHECK(to_string(f.conditions.at(after.guards[0].condition).expr) == "threadIdx.x + 1 < n");
  // m is 0, 1, 2, 3 at the label: unknown there, not the constant 0.
  CHECK(to_string(s.access(f, s.source.range("at_label"), AccessKind::Store).index) == "m");
}
