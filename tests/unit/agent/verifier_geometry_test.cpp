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
