#include <doctest/doctest.h>

#include "agent/verifier/launch_geometry.h"

using namespace warplens::verifier;

TEST_CASE("directives: block, coarsen, dynamic_smem") {
  auto src = tokenize_source(R"(
// warplens: block=(256,1,1) dynamic_smem=4096
// warplens: coarsen=(4)
__global__ void k() {}
)");
  auto d = parse_launch_directives(src.directives);
  CHECK(d.errors.empty());
  REQUIRE(d.value.block);
  CHECK(*d.value.block == Dim3{256, 1, 1});
  CHECK(d.value.coarsen == Dim3{4, 1, 1});
  CHECK(d.value.dynamic_shared_bytes == 4096u);

  auto bad = parse_launch_directives({{3, "blok=(1,1,1)"}, {4, "block=(0,1)"}, {5, "block"}});
  REQUIRE(bad.errors.size() == 3);
  CHECK(bad.errors[0].find("line 3: unknown key 'blok'") == 0);
  CHECK(bad.errors[1].find("positive integers") != std::string::npos);
}

TEST_CASE("candidate geometry: a grid sized from the launch's arguments") {
  // A 1-D launch over M x N = 1000 x 1000 (ceil(1e6 / 256) blocks) made 2-D.
  LaunchGeometry captured{{3907, 1, 1}, {256, 1, 1}, 0};
  LaunchReshape r;
  r.block = Dim3{32, 8, 1};
  r.cover = std::array<Extent, 2>{Extent{1, 0}, Extent{0, 0}};  // x: N (param 1), y: M (param 0)
  LaunchOverride o;
  o.reshapes.push_back(r);
  std::string error;
  auto g = candidate_geometry(captured, o, 132, ParamValues{{0, 1000}, {1, 999}}, &error);
  REQUIRE_MESSAGE(g, error);
  CHECK(g->grid == Dim3{32, 125, 1});
  CHECK(g->block == Dim3{32, 8, 1});
  // Then a later change scales from that grid (stage-shared-tile's 32x8
  // blocks each covering 32 rows).
  LaunchReshape tile;
  tile.block = Dim3{32, 8, 1};
  tile.scale[1] = {1, 4};
  o.reshapes.push_back(tile);
  g = candidate_geometry(captured, o, 132, ParamValues{{0, 1000}, {1, 999}}, &error);
  REQUIRE(g);
  CHECK(g->grid == Dim3{32, 32, 1});
  // Without the argument, or with a non-positive one, there is no geometry.
  CHECK_FALSE(candidate_geometry(captured, o, 132, ParamValues{{0, 1000}}, &error));
  CHECK(error.find("parameter 1") != std::string::npos);
  CHECK_FALSE(candidate_geometry(captured, o, 132, ParamValues{{0, 0}, {1, 999}}, &error));
  CHECK(to_string(r).find("cover=p1,p0") != std::string::npos);
}

TEST_CASE("candidate geometry: the grid is recomputed to cover the same threads") {
  LaunchGeometry captured{{64, 64, 1}, {32, 32, 1}, 0};
  std::string error;
  SUBCASE("no override keeps the capture") {
    auto g = candidate_geometry(captured, {}, &error);
    REQUIRE(g);
    CHECK(*g == captured);
  }
  SUBCASE("smaller blocks give a larger grid") {
    LaunchOverride o;
    o.block = Dim3{16, 16, 1};
    auto g = candidate_geometry(captured, o, &error);
    REQUIRE(g);
    CHECK(g->grid == Dim3{128, 128, 1});
    CHECK(g->block == Dim3{16, 16, 1});
  }
  SUBCASE("non-divisible sizes round up") {
    LaunchGeometry c{{10, 1, 1}, {100, 1, 1}, 0};  // 1000 threads
    LaunchOverride o;
    o.block = Dim3{256, 1, 1};
    auto g = candidate_geometry(c, o, &error);
    REQUIRE(g);
    CHECK(g->grid == Dim3{4, 1, 1});
  }
  SUBCASE("coarsening divides the threads") {
    LaunchGeometry c{{4096, 1, 1}, {256, 1, 1}, 0};
    LaunchOverride o;
    o.coarsen = Dim3{4, 1, 1};
    auto g = candidate_geometry(c, o, &error);
    REQUIRE(g);
    CHECK(g->grid == Dim3{1024, 1, 1});
    CHECK(g->block == Dim3{256, 1, 1});
  }
  SUBCASE("too many threads per block is refused") {
    LaunchOverride o;
    o.block = Dim3{64, 32, 1};
    CHECK_FALSE(candidate_geometry(captured, o, &error));
    CHECK(error.find("2048 threads") != std::string::npos);
  }
  SUBCASE("dynamic shared memory override") {
    LaunchOverride o;
    o.dynamic_shared_bytes = 8192;
    auto g = candidate_geometry(captured, o, &error);
    REQUIRE(g);
    CHECK(g->dynamic_shared_bytes == 8192u);
    CHECK(g->grid == captured.grid);
  }
}
