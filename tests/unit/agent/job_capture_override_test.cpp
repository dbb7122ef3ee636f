// How launch changes map onto the capture/replay verifier's launch override,
// and which ones it cannot express (those candidates are never offered).
#include <doctest/doctest.h>

#include "agent/capture_verifier.h"

using namespace warplens::agent;

namespace {
LaunchChange change() {
  LaunchChange c;
  c.kernel = "k";
  return c;
}
}  // namespace

TEST_CASE("new blocks and integer coarsening become a launch override") {
  LaunchChange a = change();
  a.block = Dim3{32, 8, 1};
  a.thread_scale[1] = {1, 4};
  std::string why;
  auto o = launch_override({a}, why);
  REQUIRE(o);
  REQUIRE(o->block);
  CHECK((*o->block)[0] == 32);
  CHECK((*o->block)[1] == 8);
  CHECK(o->coarsen[1] == 4);
  // Successive coarsenings multiply; the last block wins.
  LaunchChange b = change();
  b.thread_scale[0] = {1, 4};
  b.block = Dim3{256, 1, 1};
  auto o2 = launch_override({a, b}, why);
  REQUIRE(o2);
  CHECK(o2->coarsen[0] == 4);
  CHECK(o2->coarsen[1] == 4);
  CHECK((*o2->block)[0] == 256);
  CHECK(launch_override({}, why)->empty());
}

TEST_CASE("swaps, more threads and persistent grids cannot be replayed yet") {
  std::string why;
  LaunchChange s = change();
  s.swap_xy = true;
  CHECK_FALSE(launch_override({s}, why));
  CHECK(why.find("swapped") != std::string::npos);
  LaunchChange up = change();
  up.thread_scale[0] = {32, 1};
  CHECK_FALSE(launch_override({up}, why));
  CHECK(why.find("more threads") != std::string::npos);
  LaunchChange p = change();
  p.persistent_blocks_per_sm = 8;
  CHECK_FALSE(launch_override({p}, why));
  CHECK(why.find("persistent") != std::string::npos);
}
