// divergent-barrier and warp-divergence on hand-built kernel models.
#include <doctest/doctest.h>

#include "analysis/static_analyses.h"
#include "static_model_fixtures.h"

using namespace warplens;
using namespace warplens::fixtures;

namespace {

Function reduce_kernel() {
  return kernel("reduce", {pointer_param("in", "float", 4), pointer_param("out", "float", 4), int_param("n")});
}

std::vector<Finding> run(const Function& k, std::int64_t bx = 256, std::int64_t by = 1) {
  return run_static_analyses(model_of({k}, {launch(k, bx, by, 50)}), {});
}

}  // namespace

TEST_CASE("__syncthreads under a thread-dependent if is an error") {
  Function k = reduce_kernel();
  int cnd = condition(k, ConditionKind::If, lt(tx(), local("s", true)), "tid < s", 4);
  barrier(k, 5).guards = {{cnd, true}};
  auto fs = with_code(run(k), codes::kDivergentBarrier);
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].severity == Severity::Error);
  CHECK(fs[0].location.range.start.line == 4);
  CHECK(fs[0].message == "`__syncthreads()` under a thread-dependent condition (`tid < s`): threads for which "
                         "it is false skip the barrier");
  REQUIRE(fs[0].related.size() == 1);
  CHECK(fs[0].related[0].location.range.start.line == 3);
}

TEST_CASE("the reduction loop: uniform loop, barrier outside the thread-dependent if") {
  Function k = reduce_kernel();
  int l = loop(k, "s", gt(local("s", true), c(0)), "s > 0", 3, 7);
  int cnd = condition(k, ConditionKind::If, lt(tx(), local("s", true)), "tid < s", 4);
  k.conditions[std::size_t(cnd)].parent = k.loops[std::size_t(l)].condition;
  Barrier& b = barrier(k, 6);
  b.guards = {{k.loops[std::size_t(l)].condition, true}};
  b.loops = {l};
  CHECK(with_code(run(k), codes::kDivergentBarrier).empty());
}

TEST_CASE("a barrier that does not depend on the thread: uniform parameter, block index") {
  Function k = reduce_kernel();
  int c1 = condition(k, ConditionKind::If, gt(p("n"), c(64)), "n > 64", 3);
  int c2 = condition(k, ConditionKind::If, eq(bx(), c(0)), "blockIdx.x == 0", 4);
  barrier(k, 5).guards = {{c1, true}, {c2, true}};
  CHECK(with_code(run(k), codes::kDivergentBarrier).empty());
}

TEST_CASE("a barrier after a thread-dependent early return is a warning") {
  Function k = reduce_kernel();
  int cnd = condition(k, ConditionKind::EarlyExit, ge(gid(), p("n")), "i >= n", 3);
  barrier(k, 6).guards = {{cnd, false}};
  auto fs = with_code(run(k), codes::kDivergentBarrier);
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].severity == Severity::Warning);
  CHECK(fs[0].message.find("after a thread-dependent early exit (`i >= n`, line 3)") != std::string::npos);
}

TEST_CASE("a barrier in a loop with a per-thread trip count is an error") {
  // for (i = threadIdx.x; i < n; i += blockDim.x) { ...; __syncthreads(); }
  Function k = reduce_kernel();
  ExprRef i = tx() + iter("i") * bdx();
  int l = loop(k, "i", lt(i, p("n")), "i < n", 3, 6, false);
  Barrier& b = barrier(k, 5);
  b.loops = {l};
  auto fs = with_code(run(k), codes::kDivergentBarrier);
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].severity == Severity::Error);
  CHECK(fs[0].message.find("inside a loop whose trip count depends on the thread (`i < n`)") != std::string::npos);
}

TEST_CASE("a barrier on per-thread data is an error") {
  Function k = reduce_kernel();
  int cnd = condition(k, ConditionKind::If, gt(Expr::load("in", gid()), c(0)), "in[i] > 0", 3);
  barrier(k, 4).guards = {{cnd, true}};
  auto fs = with_code(run(k), codes::kDivergentBarrier);
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].severity == Severity::Error);
}

TEST_CASE("__syncwarp is judged per warp") {
  Function k = reduce_kernel();
  int whole = condition(k, ConditionKind::If, lt(tx(), c(32)), "tid < 32", 3);
  barrier(k, 4, BarrierKind::SyncWarp).guards = {{whole, true}};
  int half = condition(k, ConditionKind::If, lt(tx() % 32, c(16)), "lane < 16", 6);
  barrier(k, 7, BarrierKind::SyncWarp).guards = {{half, true}};
  // __syncthreads under tid < 32 is an error even though whole warps agree
  barrier(k, 8).guards = {{whole, true}};
  auto fs = with_code(run(k), codes::kDivergentBarrier);
  REQUIRE(fs.size() == 2);
  CHECK(fs[0].location.range.start.line == 6);
  CHECK(fs[1].location.range.start.line == 7);
}

TEST_CASE("a barrier in a device function called under a thread-dependent guard") {
  Function helper = kernel("stage", {int_param("i")}, FunctionKind::Device);
  barrier(helper, 2);
  Function k = reduce_kernel();
  int cnd = condition(k, ConditionKind::If, lt(tx(), c(64)), "threadIdx.x < 64", 5);
  CallSite call;
  call.callee = "stage";
  call.callee_key = "stage()";
  call.range = line_range(6);
  call.args = {tx()};
  call.guards = {{cnd, true}};
  k.calls.push_back(call);
  auto fs = with_code(run_static_analyses(model_of({helper, k}, {launch(k, 256, 1, 50)}), {}),
                      codes::kDivergentBarrier);
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].location.range.start.line == 1);
  CHECK(fs[0].message.find("through the call to `stage` at line 6") != std::string::npos);
}

TEST_CASE("warp-divergence: lane-splitting branches with the fraction") {
  Function k = reduce_kernel();
  condition(k, ConditionKind::If, eq(tx() % 2, c(0)), "tid % 2 == 0", 3);
  condition(k, ConditionKind::If, lt(gid(), p("n")), "i < n", 4);
  condition(k, ConditionKind::If, eq(tx(), c(0)), "tid == 0", 5);
  condition(k, ConditionKind::If, gt(Expr::load("in", gid()), c(0)), "in[i] > 0", 6);
  condition(k, ConditionKind::If, lt(tx() % 32, c(8)), "lane < 8", 7);
  condition(k, ConditionKind::If, lt(tx(), c(64)), "tid < 64", 8);
  condition(k, ConditionKind::If, eq(tx() % (2 * local("s", true)), c(0)), "tid % (2 * s) == 0", 9);
  auto fs = with_code(run(k), codes::kWarpDivergence);
  REQUIRE(fs.size() == 3);
  CHECK(fs[0].severity == Severity::Hint);
  CHECK(fs[0].location.range.start.line == 2);
  CHECK(fs[0].message == "branch on `tid % 2 == 0` splits warps: 16 of 32 lanes (50%) take it, 16 do not; both "
                         "sides run one after the other");
  CHECK(fs[1].location.range.start.line == 6);
  CHECK(fs[1].message.find("8 of 32 lanes (25%)") != std::string::npos);
  CHECK(fs[2].location.range.start.line == 8);
  CHECK(fs[2].message.find("depends on values not known statically") != std::string::npos);
}

TEST_CASE("warp-divergence in a 16x16 block: threadIdx.y splits a warp") {
  Function k = reduce_kernel();
  condition(k, ConditionKind::If, eq(ty() % 2, c(0)), "threadIdx.y % 2 == 0", 3);
  auto narrow = with_code(run(k, 16, 16), codes::kWarpDivergence);
  CHECK(narrow.size() == 1);
  auto wide = with_code(run(k, 32, 8), codes::kWarpDivergence);
  CHECK(wide.empty());
}

TEST_CASE("__syncwarp with a partial mask is not judged") {
  Function k = reduce_kernel();
  int half = condition(k, ConditionKind::If, lt(tx() % 32, c(16)), "lane < 16", 3);
  Barrier& b = barrier(k, 4, BarrierKind::SyncWarp);
  b.spelling = "__syncwarp(0x0000ffff)";
  b.guards = {{half, true}};
  Barrier& full = barrier(k, 5, BarrierKind::SyncWarp);
  full.spelling = "__syncwarp(0xFFFFFFFF)";
  full.guards = {{half, true}};
  auto fs = with_code(run(k), codes::kDivergentBarrier);
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].location.range.start.line == 4);
}

TEST_CASE("an ordering against an unknown splits one warp only: no warp-divergence") {
  // Harris' reduction #2: index = 2 * s * tid; if (index < blockDim.x)
  Function k = reduce_kernel();
  condition(k, ConditionKind::If, lt(2 * local("s", true) * tx(), bdx()), "index < blockDim.x", 3);
  CHECK(with_code(run(k), codes::kWarpDivergence).empty());
}

TEST_CASE("a non-monotone ordering is judged with small values too (bitonic sort)") {
  // ixj = tid ^ j; if (ixj > tid) with j halving each step
  Function k = reduce_kernel();
  condition(k, ConditionKind::If, gt(Expr::binary(ExprOp::BitXor, tx(), local("j", true)), tx()), "ixj > tid", 3);
  auto fs = with_code(run(k), codes::kWarpDivergence);
  REQUIRE(fs.size() == 1);
  CHECK(fs[0].message.find("depends on values not known statically") != std::string::npos);
}
