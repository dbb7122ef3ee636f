// The warp model on its own: lanes -> threads, guards -> active lanes,
// offsets -> sectors and wavefronts. Numbers checked by hand against the
// hardware rules (32-byte sectors; 32 banks x 4 bytes; half/quarter-warp
// phases for 8/16-byte shared accesses) and, where one exists, against the
// H200 measurement in docs/static-analysis.md.
#include <doctest/doctest.h>

#include "analysis/warp_model.h"
#include "static_model_fixtures.h"

using namespace warplens;
using namespace warplens::fixtures;

namespace {

AccessLanes lanes_of(ExprRef byte_offset, BlockShape shape, std::vector<LaneGuard> guards = {}, int warp = 0) {
  EvalContext ctx{shape};
  return evaluate_access(byte_offset, guards, warp_lanes(shape, warp), ctx);
}

SectorCount sectors(ExprRef index, int bytes, BlockShape shape = {256, 1, 1}, std::vector<LaneGuard> g = {}) {
  AccessLanes l = lanes_of(index * bytes, shape, std::move(g));
  REQUIRE(l.modelled);
  return count_sectors(l.offsets, l.active, bytes);
}

WavefrontCount wavefronts(ExprRef index, int bytes, BlockShape shape = {32, 32, 1}) {
  AccessLanes l = lanes_of(index * bytes, shape);
  REQUIRE(l.modelled);
  return count_wavefronts(l.offsets, l.active, bytes);
}

}  // namespace

TEST_CASE("lanes map to threads through the linear thread id") {
  WarpLanes w = warp_lanes({16, 16, 1}, 0);
  CHECK(w.exists == kAllLanes);
  CHECK(w.thread[15].x == 15);
  CHECK(w.thread[15].y == 0);
  CHECK(w.thread[16].x == 0);
  CHECK(w.thread[16].y == 1);

  WarpLanes w1 = warp_lanes({8, 4, 4}, 1);  // linear ids 32..63
  CHECK(w1.thread[0].x == 0);
  CHECK(w1.thread[0].y == 0);
  CHECK(w1.thread[0].z == 1);

  WarpLanes small = warp_lanes({16, 1, 1}, 0);
  CHECK(lane_count(small.exists) == 16);

  CHECK(representative_warps({256, 1, 1}) == std::vector<int>{0});
  CHECK(representative_warps({16, 16, 1}) == std::vector<int>{0, 1});
  CHECK(representative_warps({16, 1, 1}) == std::vector<int>{0});
}

TEST_CASE("global sectors: coalesced, strided, misaligned, broadcast, wide") {
  SUBCASE("consecutive floats: 4 sectors, ideal 4") {
    SectorCount s = sectors(gid(), 4);
    CHECK(s.sectors == 4);
    CHECK(s.ideal == 4);
  }
  SUBCASE("stride 2 floats: 8 sectors") {
    SectorCount s = sectors(gid() * 2, 4);
    CHECK(s.sectors == 8);
    CHECK(s.ideal == 4);
  }
  SUBCASE("stride 32 floats: one sector per lane") {
    CHECK(sectors(tx() * 32, 4).sectors == 32);
  }
  SUBCASE("one float off: 5 sectors (the warp straddles a sector boundary)") {
    CHECK(sectors(gid() + 1, 4).sectors == 5);
    CHECK(sectors(gid() - 1, 4).sectors == 5);
  }
  SUBCASE("uniform unknown offsets stay aligned") {
    CHECK(sectors(p("row") * p("n") + gid(), 4).sectors == 4);
  }
  SUBCASE("reversed copy is still 4 sectors") {
    CHECK(sectors(p("n") - gid() - 1, 4).sectors == 4);
  }
  SUBCASE("broadcast: one sector") {
    SectorCount s = sectors(bx(), 4);
    CHECK(s.sectors == 1);
    CHECK(s.ideal == 4);
  }
  SUBCASE("float4 vector loads: 16 sectors, ideal 16") {
    SectorCount s = sectors(gid(), 16);
    CHECK(s.sectors == 16);
    CHECK(s.ideal == 16);
  }
  SUBCASE("doubles: 8, ideal 8; stride 2 doubles: 16") {
    CHECK(sectors(gid(), 8).sectors == 8);
    CHECK(sectors(gid() * 2, 8).sectors == 16);
  }
  SUBCASE("16-wide 2-D block: two rows of 64 bytes") {
    CHECK(sectors(ty() * p("w") + tx(), 4, {16, 16, 1}).sectors == 4);
    // a row pitch of 20 floats misaligns the second row: 2 + 3 sectors
    CHECK(sectors(ty() * 20 + tx(), 4, {16, 16, 1}).sectors == 5);
    CHECK(sectors(ty() * 20 + tx(), 4, {32, 8, 1}).sectors == 4);
  }
}

TEST_CASE("guards narrow the active lanes only when they split every warp the same way") {
  SUBCASE("tid % 2 == 0: 16 active lanes, 4 sectors for an ideal of 2") {
    SectorCount s = sectors(gid(), 4, {256, 1, 1}, {{eq(tx() % 2, c(0)), true}});
    CHECK(s.active == 16);
    CHECK(s.sectors == 4);
    CHECK(s.ideal == 2);
  }
  SUBCASE("a bounds check leaves the warp whole") {
    SectorCount s = sectors(gid(), 4, {256, 1, 1}, {{lt(gid(), p("n")), true}});
    CHECK(s.active == 32);
  }
  SUBCASE("threadIdx.y == 0 in a 16x16 block: the first 16 lanes") {
    SectorCount s = sectors(tx(), 4, {16, 16, 1}, {{eq(ty(), c(0)), true}});
    CHECK(s.active == 16);
    CHECK(s.ideal == 2);
  }
  SUBCASE("the else side of a split") {
    SectorCount s = sectors(tx(), 4, {256, 1, 1}, {{lt(tx(), c(8)), false}});
    CHECK(s.active == 24);
  }
  SUBCASE("per-lane data makes the condition unknown: all lanes stay active") {
    SectorCount s = sectors(tx(), 4, {256, 1, 1}, {{gt(Expr::load("in", gid()), c(0)), true}});
    CHECK(s.active == 32);
  }
}

TEST_CASE("dependence on a warp-uniform unknown shows in the per-lane differences") {
  CHECK(lanes_of(tx() * p("n") * 4, {256, 1, 1}).depends_on_unknown);
  CHECK_FALSE(lanes_of((bx() * p("n") + tx()) * 4, {256, 1, 1}).depends_on_unknown);
  CHECK_FALSE(lanes_of((tx() + iter("k") * bdx() * gdx()) * 4, {256, 1, 1}).depends_on_unknown);
  // a lane-varying unresolved local cannot be evaluated
  CHECK_FALSE(lanes_of(local("j", false) * 4, {256, 1, 1}).modelled);
  // a uniform load (offsets[blockIdx.x]) cancels like any uniform
  AccessLanes l = lanes_of((Expr::load("offsets", bx()) + tx()) * 4, {256, 1, 1});
  CHECK(l.modelled);
  CHECK(count_sectors(l.offsets, l.active, 4).sectors == 4);
}

TEST_CASE("launch literals replace assumed parameter values") {
  std::map<std::string, std::int64_t> known{{"n", 1}};
  EvalContext ctx{{256, 1, 1}, Assumption::LargeA, &known};
  AccessLanes l = evaluate_access(tx() * p("n") * 4, {}, warp_lanes({256, 1, 1}, 0), ctx);
  REQUIRE(l.modelled);
  CHECK(count_sectors(l.offsets, l.active, 4).sectors == 4);
}

TEST_CASE("shared wavefronts: rows, columns, padding, broadcast") {
  SUBCASE("tile[ty][tx] of [32][32]: conflict-free") {
    WavefrontCount w = wavefronts(ty() * 32 + tx(), 4);
    CHECK(w.wavefronts == 1);
    CHECK(w.ideal == 1);
  }
  SUBCASE("tile[tx][ty] of [32][32]: 32-way, all in one bank (measured on the H200: 32x)") {
    WavefrontCount w = wavefronts(tx() * 32 + ty(), 4);
    CHECK(w.wavefronts == 32);
    CHECK(w.degree == 32);
    CHECK(w.words_per_bank[0] == 32);
    CHECK(w.words_per_bank[1] == 0);
  }
  SUBCASE("tile[tx][ty] of [32][33]: conflict-free") {
    CHECK(wavefronts(tx() * 33 + ty(), 4).wavefronts == 1);
  }
  SUBCASE("stride 2 words: 2-way") {
    CHECK(wavefronts(tx() * 2, 4).degree == 2);
  }
  SUBCASE("all lanes the same word: broadcast") {
    CHECK(wavefronts(ty(), 4).wavefronts == 1);
  }
  SUBCASE("8-byte elements: two half-warp phases") {
    WavefrontCount w = wavefronts(tx(), 8);
    CHECK(w.wavefronts == 2);
    CHECK(w.ideal == 2);
    CHECK(w.phase_lanes == 16);
    WavefrontCount strided = wavefronts(tx() * 2, 8);
    CHECK(strided.wavefronts == 4);
    CHECK(strided.ideal == 2);
  }
  SUBCASE("16-byte elements: four quarter-warp phases") {
    WavefrontCount w = wavefronts(tx(), 16);
    CHECK(w.wavefronts == 4);
    CHECK(w.ideal == 4);
    CHECK(wavefronts(tx() * 2, 16).wavefronts == 8);
  }
  SUBCASE("bytes: four lanes share a word") {
    CHECK(wavefronts(tx(), 1).wavefronts == 1);
  }
}

TEST_CASE("conditions are classified as uniform, split, value-dependent or unknown") {
  WarpLanes w = warp_lanes({256, 1, 1}, 0);
  EvalContext ctx{{256, 1, 1}};
  CHECK(classify_condition(eq(tx() % 2, c(0)), w, w.exists, ctx).split == LaneSplit::Split);
  CHECK(classify_condition(lt(tx(), p("n")), w, w.exists, ctx).split == LaneSplit::ValueDependent);
  CHECK(classify_condition(lt(gid(), p("n")), w, w.exists, ctx).split != LaneSplit::Split);
  CHECK(classify_condition(lt(p("k"), p("n")), w, w.exists, ctx).split == LaneSplit::Uniform);
  CHECK(classify_condition(gt(Expr::load("in", gid()), c(0)), w, w.exists, ctx).split == LaneSplit::Unknown);
  ConditionLanes interleaved = classify_condition(eq(tx() % (2 * p("s")), c(0)), w, w.exists, ctx);
  CHECK(interleaved.splits_under_large);
  CHECK_FALSE(interleaved.count_stable);
}
