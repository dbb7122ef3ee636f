// Launch/fusion declarations (the contract with the verifier), the launch
// reshaping rule, and minimal edits.
#include <doctest/doctest.h>

#include "agent/candidate.h"
#include "agent/candidate_verifier.h"
#include "agent/text_diff.h"

using namespace warplens;
using namespace warplens::agent;

TEST_CASE("launch declarations round-trip and reject malformed lines") {
  LaunchChange c;
  c.kernel = "matvec_rows";
  c.block = Dim3{256, 1, 1};
  c.thread_scale[0] = {32, 1};
  c.persistent_blocks_per_sm = 0;
  const std::string line = format_launch_declaration(c);
  CHECK(line == "// warplens-launch: kernel=matvec_rows block=256,1,1 swap-xy=0 scale=32/1,1/1,1/1 persistent=0");
  auto back = parse_launch_declaration(line);
  REQUIRE(back);
  CHECK(*back == c);

  LaunchChange swap;
  swap.kernel = "k";
  swap.swap_xy = true;
  auto s = parse_launch_declaration(format_launch_declaration(swap));
  REQUIRE(s);
  CHECK(s->swap_xy);
  CHECK_FALSE(s->block);

  CHECK_FALSE(parse_launch_declaration("// warplens-launch: block=32,8,1"));             // no kernel
  CHECK_FALSE(parse_launch_declaration("// warplens-launch: kernel=k block=0,1,1"));     // zero extent
  CHECK_FALSE(parse_launch_declaration("// warplens-launch: kernel=k scale=1/0,1/1,1/1"));
  CHECK_FALSE(parse_launch_declaration("// warplens-launch: kernel=k swap-xy=maybe"));
  CHECK_FALSE(parse_launch_declaration("int x = 0;"));
}

TEST_CASE("a grid sized from the arguments: declaration and reshaping") {
  LaunchChange c;
  c.kernel = "matmul_flat";
  c.block = Dim3{32, 8, 1};
  c.cover = std::array<ParamExtent, 2>{ParamExtent{4, 0}, ParamExtent{-1, 1000}};
  const std::string line = format_launch_declaration(c);
  CHECK(line ==
        "// warplens-launch: kernel=matmul_flat block=32,8,1 swap-xy=0 scale=1/1,1/1,1/1 persistent=0 cover=p4,1000");
  auto back = parse_launch_declaration(line);
  REQUIRE(back);
  CHECK(*back == c);
  // An old declaration (no cover) still parses to no cover.
  auto old = parse_launch_declaration("// warplens-launch: kernel=k block=same swap-xy=0 scale=1/1,1/1,1/1 persistent=0");
  REQUIRE(old);
  CHECK_FALSE(old->cover);
  CHECK_FALSE(parse_launch_declaration("// warplens-launch: kernel=k block=32,8,1 cover=p1"));     // one extent
  CHECK_FALSE(parse_launch_declaration("// warplens-launch: kernel=k block=32,8,1 cover=q1,p2"));  // not p<N>
  CHECK_FALSE(parse_launch_declaration("// warplens-launch: kernel=k block=32,8,1 cover=0,p2"));   // no threads
  // x from parameter 4 (N = 1000), y the constant 1000: the previous grid
  // (a 1-D launch) does not matter.
  LaunchShape orig{{3907, 1, 1}, {256, 1, 1}};
  LaunchShape r = reshape_launch(c, orig, 132, {{4, 1000}});
  CHECK(r.grid == Dim3{32, 125, 1});
  CHECK(r.block == Dim3{32, 8, 1});
}

TEST_CASE("the reshaping rule covers the same threads") {
  LaunchShape orig{{64, 64, 1}, {16, 16, 1}};
  SUBCASE("new block, same threads") {
    LaunchChange c;
    c.kernel = "k";
    c.block = Dim3{32, 8, 1};
    LaunchShape r = reshape_launch(c, orig, 132);
    CHECK(r.block == Dim3{32, 8, 1});
    CHECK(r.grid == Dim3{32, 128, 1});
  }
  SUBCASE("rows per thread: y threads divided by 4") {
    LaunchChange c;
    c.kernel = "k";
    c.block = Dim3{32, 8, 1};
    c.thread_scale[1] = {1, 4};
    CHECK(reshape_launch(c, orig, 132).grid == Dim3{32, 32, 1});
  }
  SUBCASE("swap exchanges grid and block axes") {
    LaunchShape o{{128, 2, 1}, {16, 8, 1}};
    LaunchChange c;
    c.kernel = "k";
    c.swap_xy = true;
    LaunchShape r = reshape_launch(c, o, 132);
    CHECK(r.block == Dim3{8, 16, 1});
    CHECK(r.grid == Dim3{2, 128, 1});
  }
  SUBCASE("warp per row: 32x the threads, rounded up") {
    LaunchShape o{{3, 1, 1}, {100, 1, 1}};
    LaunchChange c;
    c.kernel = "k";
    c.block = Dim3{128, 1, 1};
    c.thread_scale[0] = {32, 1};
    CHECK(reshape_launch(c, o, 132).grid.x == (3 * 100 * 32 + 127) / 128);
  }
  SUBCASE("persistent grids are capped by the SM count") {
    LaunchShape o{{100000, 1, 1}, {256, 1, 1}};
    LaunchChange c;
    c.kernel = "k";
    c.persistent_blocks_per_sm = 8;
    CHECK(reshape_launch(c, o, 132).grid.x == 132 * 8);
    CHECK(reshape_launch(c, LaunchShape{{10, 1, 1}, {256, 1, 1}}, 132).grid.x == 10);
  }
}

TEST_CASE("fusion declarations round-trip") {
  FusionDeclaration f;
  f.fused_kernel = "mul_bias_relu_fused";
  f.first = "mul";
  f.second = "bias_relu";
  f.params = {{0, 0}, {0, 1}, {0, 3}, {1, 1}, {1, 2}, {1, 3}};
  f.elided = 2;
  const std::string line = format_fusion_declaration(f);
  CHECK(line == "// warplens-fused: kernel=mul_bias_relu_fused first=mul second=bias_relu params=A0,A1,A3,B1,B2,B3 elides=A2");
  auto back = parse_fusion_declaration(line);
  REQUIRE(back);
  CHECK(*back == f);
  CHECK_FALSE(parse_fusion_declaration("// warplens-fused: kernel=f first=a second=b params=C1 elides=A2"));
}

TEST_CASE("candidate file headers carry the declarations") {
  Candidate c;
  c.id = "c03";
  c.kernel = "k";
  c.policy = "builtin";
  c.plan = {{"block-size", {{"x", 256}}}, {"unroll", {{"factor", 4}}}};
  LaunchChange l;
  l.kernel = "k";
  l.block = Dim3{256, 1, 1};
  c.launch_changes = {l};
  const std::string header = candidate_file_header(c);
  CHECK(header.find("plan: block-size(x=256) + unroll(factor=4)") != std::string::npos);
  auto found = find_launch_declarations(header + "__global__ void k() {}\n");
  REQUIRE(found.size() == 1);
  CHECK(found[0] == l);
}

TEST_CASE("reward levels follow the 5% milestones") {
  CHECK(reward_level(false, 1.0, 0.1, {}, {}) == RewardLevel::Incorrect);
  CHECK(reward_level(true, 1.0, 0.96, {}, {}) == RewardLevel::Correct);
  CHECK(reward_level(true, 1.0, 0.94, {}, {}) == RewardLevel::Faster);
  CHECK(reward_level(true, 1.0, 0.5, 0.6, 0.9) == RewardLevel::FasterThanPyTorch);
  CHECK(reward_level(true, 1.0, 0.5, 0.6, 0.52) == RewardLevel::Faster);  // not 5% under torch.compile
  CHECK(reward_level(true, 1.0, 0.5, 0.6, std::nullopt) == RewardLevel::Faster);
}

TEST_CASE("minimal edits reproduce the rewritten text and touch only changed lines") {
  const std::string before = "a\nb\nc\nd\ne\n";
  const std::string after = "a\nB\nc\nd\nx\ny\ne\n";
  auto edits = minimal_edits(before, after);
  REQUIRE(edits.size() == 2);
  CHECK(edits[0].range.start.line == 1);
  CHECK(edits[0].range.end.line == 2);
  CHECK(edits[0].new_text == "B\n");
  CHECK(edits[1].range.start.line == 4);
  CHECK(edits[1].range.end.line == 4);  // pure insertion
  std::string text = before;
  REQUIRE(apply_edits(text, edits));
  CHECK(text == after);

  // No trailing newline, last line changed.
  std::string b2 = "x\ny", a2 = "x\nz";
  auto e2 = minimal_edits(b2, a2);
  REQUIRE(apply_edits(b2, e2));
  CHECK(b2 == a2);

  CHECK(minimal_edits("same\n", "same\n").empty());
  CHECK(text_hash("a") != text_hash("b"));
}

TEST_CASE("reassociation declarations: the header line and combining two rewrites' sums") {
  CHECK(format_reassociation_declaration("row_sums", {ParamExtent{3, 0}, ParamExtent{-1, 32}}) ==
        "// warplens-reassociates: kernel=row_sums terms=p3*32");
  CHECK(format_reassociation_declaration("k", {}) == "// warplens-reassociates: kernel=k terms=inputs");
  // Two rewrites reordering different sums: unknown (bounded by the inputs).
  using T = ReassociatedTerms;
  auto a = std::optional<T>(T{ParamExtent{1, 0}});
  auto b = std::optional<T>(T{ParamExtent{2, 0}});
  CHECK(*combine_reassociations(a, std::nullopt) == *a);
  CHECK(*combine_reassociations(std::nullopt, b) == *b);
  CHECK(*combine_reassociations(a, a) == *a);
  CHECK(combine_reassociations(a, b)->empty());
  CHECK_FALSE(combine_reassociations(std::nullopt, std::nullopt));
}
