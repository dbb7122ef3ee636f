// How launch changes and fusions map onto the capture/replay verifier: every
// LaunchChange becomes a verifier reshape that gives exactly the shape
// agent::reshape_launch (the rule the candidates' host code applies) gives,
// and a fusion declaration the verifier's FusionSpec.
#include <doctest/doctest.h>

#include "agent/capture_verifier.h"

using namespace warplens::agent;
namespace verifier = warplens::verifier;

namespace {
LaunchChange change() {
  LaunchChange c;
  c.kernel = "k";
  return c;
}

verifier::LaunchGeometry geometry(const LaunchShape& s) {
  auto u = [](std::int64_t v) { return static_cast<std::uint32_t>(v); };
  return {{u(s.grid.x), u(s.grid.y), u(s.grid.z)}, {u(s.block.x), u(s.block.y), u(s.block.z)}, 0};
}
}  // namespace

TEST_CASE("every kind of launch change becomes a reshape, in order") {
  LaunchChange a = change();
  a.block = Dim3{32, 8, 1};
  a.thread_scale[1] = {1, 4};
  LaunchChange up = change();
  up.thread_scale[0] = {32, 1};
  LaunchChange s = change();
  s.swap_xy = true;
  LaunchChange p = change();
  p.persistent_blocks_per_sm = 8;
  std::string why;
  auto o = launch_override({a, up, s, p}, why);
  REQUIRE(o);
  REQUIRE(o->reshapes.size() == 4);
  CHECK(o->reshapes[0].block == verifier::Dim3{32, 8, 1});
  CHECK(o->reshapes[0].scale[1] == verifier::Ratio{1, 4});
  CHECK(o->reshapes[1].scale[0] == verifier::Ratio{32, 1});
  CHECK(o->reshapes[2].swap_xy);
  CHECK(o->reshapes[3].persistent_blocks_per_sm == 8);
  CHECK_FALSE(o->block);
  CHECK(launch_override({}, why)->empty());
}

TEST_CASE("changes of another kernel are left out; impossible values are refused with the declaration") {
  LaunchChange mine = change();
  mine.block = Dim3{128, 1, 1};
  LaunchChange other = change();
  other.kernel = "other";
  other.swap_xy = true;
  std::string why;
  auto o = launch_override({mine, other}, why, "k");
  REQUIRE(o);
  CHECK(o->reshapes.size() == 1);
  LaunchChange zero = change();
  zero.thread_scale[0] = {0, 1};
  CHECK_FALSE(launch_override({zero}, why));
  CHECK(why == "the launch change // warplens-launch: kernel=k block=same swap-xy=0 scale=0/1,1/1,1/1 persistent=0 "
               "has a thread scale no launch can have");
  LaunchChange negative = change();
  negative.block = Dim3{-32, 1, 1};
  CHECK_FALSE(launch_override({negative}, why));
}

TEST_CASE("the verifier reshapes exactly as the candidates' host code does (agent::reshape_launch)") {
  const LaunchShape launches[] = {
      {{4096, 1, 1}, {256, 1, 1}}, {{65, 1, 1}, {256, 1, 1}},  {{128, 128, 1}, {16, 16, 1}},
      {{33, 7, 1}, {32, 32, 1}},   {{1, 1, 1}, {31, 1, 1}},    {{64, 64, 2}, {32, 8, 1}}};
  std::vector<LaunchChange> kinds;
  {
    LaunchChange c = change();
    c.block = Dim3{512, 1, 1};
    kinds.push_back(c);
    c = change();
    c.block = Dim3{32, 8, 1};
    c.thread_scale[1] = {1, 4};
    kinds.push_back(c);
    c = change();
    c.thread_scale[0] = {1, 4};
    kinds.push_back(c);
    c = change();
    c.thread_scale[0] = {32, 1};
    kinds.push_back(c);
    c = change();
    c.swap_xy = true;
    kinds.push_back(c);
    c = change();
    c.persistent_blocks_per_sm = 4;
    kinds.push_back(c);
    c = change();
    c.block = Dim3{32, 32, 1};
    kinds.push_back(c);
  }
  const int sms = 132;
  for (const auto& start : launches)
    for (const auto& first : kinds)
      for (const auto& second : kinds) {
        // Successive changes apply in order, each to the previous shape.
        const LaunchShape want = reshape_launch(second, reshape_launch(first, start, sms), sms);
        std::string why;
        auto o = launch_override({first, second}, why);
        REQUIRE(o);
        std::string error;
        auto got = verifier::candidate_geometry(geometry(start), *o, sms, &error);
        const auto w = geometry(want);
        const std::uint64_t threads = std::uint64_t{w.block[0]} * w.block[1] * w.block[2];
        if (threads > 1024) {  // e.g. a swap of (32,32) then block (512): the verifier refuses it, with the reason
          CHECK_FALSE(got);
          CHECK(error.find("threads (1..1024 allowed)") != std::string::npos);
          continue;
        }
        if (want.grid.y > 65535 || want.grid.z > 65535) {  // a long x grid swapped into y: no GPU launches that
          CHECK_FALSE(got);
          CHECK(error.find("(out of range)") != std::string::npos);
          continue;
        }
        INFO(format_launch_declaration(first) << " then " << format_launch_declaration(second) << ": " << error);
        REQUIRE(got);
        CHECK(got->grid == w.grid);
        CHECK(got->block == w.block);
      }
}

TEST_CASE("a fusion declaration becomes the verifier's fusion spec") {
  auto decl = parse_fusion_declaration(
      "// warplens-fused: kernel=mul_bias_relu_fused first=mul second=bias_relu params=A0,A1,A2,A3,B1,B2,B3 elides=A2");
  REQUIRE(decl);
  verifier::FusionSpec f = to_fusion_spec(*decl);
  CHECK(f.first == "mul");
  CHECK(f.second == "bias_relu");
  CHECK(f.elided == 2);
  REQUIRE(f.params.size() == 7);
  CHECK(f.params[4] == verifier::ParamSource{1, 1});
  CHECK(f.consumer_temporary() == 0);  // bias_relu's `t`, the one parameter not passed
}
