#include <doctest/doctest.h>

#include "agent/verifier/shape_variation.h"
#include "tests/unit/agent/verifier_test_support.h"

using namespace warplens;
using namespace warplens::verifier;

namespace {

// A launch with the given integer scalars (I32, after two pointers) and geometry.
capture::LaunchRecord launch_with(std::vector<int> ints, std::array<std::uint32_t, 3> grid, std::array<std::uint32_t, 3> block) {
  capture::LaunchRecord l;
  l.kernel = "k";
  l.grid = grid;
  l.block = block;
  l.params = {{0, 0, 8}, {1, 8, 8}};
  l.param_buffer.assign(16, 0);
  for (std::size_t i = 0; i < ints.size(); ++i) {
    l.params.push_back({static_cast<int>(2 + i), 16 + 4 * i, 4});
    test::put<int>(l.param_buffer, 16 + 4 * i, ints[i]);
  }
  return l;
}

LaunchLayout layout_for(const capture::LaunchRecord& l, std::vector<std::string> names) {
  LaunchLayout layout;
  for (std::size_t i = 2; i < l.params.size(); ++i) {
    layout.scalars.push_back({l.params[i].index, l.params[i].offset, ElementType::I32});
    layout.scalar_names.push_back(names[i - 2]);
  }
  return layout;
}

}  // namespace

TEST_CASE("shape variations: odd values below the captured ones") {
  CHECK(odd_at_most(786432) == 786431);
  CHECK(odd_at_most(7) == 7);
  CHECK(odd_at_most(0) == 1);
  CHECK(residue_at_most(524288, 17, 32) == 524273);
  CHECK(residue_at_most(524273, 17, 32) == 524273);
  CHECK(residue_at_most(10, 17, 32) == 9);  // none that small: odd instead
}

TEST_CASE("shape variations: a 1D kernel's n and grid shrink together") {
  auto l = launch_with({1048576}, {8192, 1, 1}, {128, 1, 1});
  ShapePlan p = plan_shape_variations(l, layout_for(l, {"n"}));
  REQUIRE(p.variations.size() == 2);
  CHECK(p.note.empty());
  CHECK(p.variations[0].scalars == std::vector<ScalarValue>{{2, 16, ElementType::I32, 786431}});
  CHECK(p.variations[0].geometry.grid == Dim3{6144, 1, 1});
  CHECK(p.variations[0].geometry.block == Dim3{128, 1, 1});
  CHECK(p.variations[0].description == "n 1048576 -> 786431; grid (8192,1,1) -> (6144,1,1)");
  CHECK(p.variations[1].scalars[0].value == 524273);
  CHECK(p.variations[1].geometry.grid == Dim3{4096, 1, 1});
}

TEST_CASE("shape variations: four elements per thread (grid = n / (block * 4))") {
  auto l = launch_with({1 << 20}, {2048, 1, 1}, {128, 1, 1});
  ShapePlan p = plan_shape_variations(l, layout_for(l, {"n"}));
  REQUIRE(p.variations.size() == 2);
  CHECK(p.variations[0].geometry.grid == Dim3{1536, 1, 1});  // ceil(786431 / 512)
}

TEST_CASE("shape variations: a square matrix gets a third, non-square shape; the grid covers the larger side") {
  auto l = launch_with({2048, 2048}, {64, 64, 1}, {32, 32, 1});
  ShapePlan p = plan_shape_variations(l, layout_for(l, {"rows", "cols"}));
  REQUIRE(p.variations.size() == 3);
  CHECK(p.variations[0].scalars[0].value == 1535);
  CHECK(p.variations[0].scalars[1].value == 1535);
  CHECK(p.variations[0].geometry.grid == Dim3{48, 48, 1});
  CHECK(p.variations[2].scalars[0].value == 1843);
  CHECK(p.variations[2].scalars[1].value == 1433);
  // Both dimensions match both sizes: the grid covers the larger one.
  CHECK(p.variations[2].geometry.grid == Dim3{58, 58, 1});
  CHECK(p.variations[2].description ==
        "rows 2048 -> 1843, cols 2048 -> 1433; grid (64,64,1) -> (58,58,1)");
}

TEST_CASE("shape variations: a block per row is not linked to a column count; the note says so") {
  auto l = launch_with({1024}, {4096, 1, 1}, {256, 1, 1});
  ShapePlan p = plan_shape_variations(l, layout_for(l, {"cols"}));
  REQUIRE(p.variations.size() == 2);
  CHECK(p.variations[0].geometry.grid == Dim3{4096, 1, 1});
  CHECK(p.variations[0].description == "cols 1024 -> 767");
  CHECK(p.note == "grid dimension(s) x derive from no size argument and stay as captured in the shape variations");
}

TEST_CASE("shape variations: a block per row linked to the row count") {
  auto l = launch_with({4096, 1024}, {4096, 1, 1}, {256, 1, 1});
  ShapePlan p = plan_shape_variations(l, layout_for(l, {"rows", "cols"}));
  REQUIRE(p.variations.size() == 2);
  CHECK(p.variations[0].geometry.grid == Dim3{3071, 1, 1});
}

TEST_CASE("shape variations: none without integer size arguments, small ones are left alone") {
  auto none = launch_with({}, {16, 1, 1}, {256, 1, 1});
  ShapePlan p = plan_shape_variations(none, layout_for(none, {}));
  CHECK(p.variations.empty());
  CHECK(p.note == "no integer scalar argument of at least 8: shapes beyond the captured ones were not tried");
  auto small = launch_with({3, 1 << 16}, {256, 1, 1}, {256, 1, 1});
  ShapePlan q = plan_shape_variations(small, layout_for(small, {"mode", "n"}));
  REQUIRE(q.variations.size() == 2);
  REQUIRE(q.variations[0].scalars.size() == 1);  // mode (3) is not a size
  CHECK(q.variations[0].scalars[0].param == 3);
}
