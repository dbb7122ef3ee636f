// Block shape resolution order: launch sites, __launch_bounds__, per-kernel
// setting, default setting, built-in default.
#include <doctest/doctest.h>

#include "analysis/block_shape.h"
#include "occupancy_test_support.h"

using namespace warplens;
using warplens::test::make_kernel;
using warplens::test::make_launch;

namespace {

struct Fixture {
  KernelModel model;
  AnalysisOptions options;
  Fixture() {
    model.functions.push_back(make_kernel("k", {"float *"}));
    model.functions.push_back(make_kernel("other", {"float *"}));
  }
  Function& k() { return model.functions[0]; }
  BlockShapeResolution resolve() { return resolve_block_shapes(model, model.functions[0], options); }
};

}  // namespace

TEST_CASE("launch sites win, one candidate per distinct shape and dynamic smem") {
  Fixture f;
  f.k().launch_bounds = LaunchBounds{512, 2, "__launch_bounds__(512, 2)", {}};
  f.options.kernel_blocks["k"] = {64, 1, 1};
  f.model.launches.push_back(make_launch(f.k(), std::array<std::int64_t, 3>{16, 16, 1}, "dim3(16, 16)", 20));
  f.model.launches.push_back(make_launch(f.k(), std::array<std::int64_t, 3>{16, 16, 1}, "block", 30));
  auto with_smem = make_launch(f.k(), std::array<std::int64_t, 3>{16, 16, 1}, "block", 40);
  with_smem.shared_bytes_spelling = "4096";
  with_smem.shared_bytes = 4096;
  f.model.launches.push_back(with_smem);
  f.model.launches.push_back(make_launch(f.model.functions[1], std::array<std::int64_t, 3>{1024, 1, 1}, "1024"));
  f.model.launches.push_back(make_launch(f.k(), std::nullopt, "dim3(n)", 50));

  auto r = f.resolve();
  CHECK(r.source == BlockShapeSource::LaunchSite);
  REQUIRE(r.candidates.size() == 2);
  CHECK(r.candidates[0].shape == BlockShape{16, 16, 1});
  CHECK(r.candidates[0].launch_indices == std::vector<int>{0, 1});
  CHECK(r.candidates[0].dynamic_shared_bytes == 0);
  CHECK(r.candidates[0].description == "launch at line 21: <<<grid, dim3(16, 16)>>>");
  CHECK(r.candidates[1].dynamic_shared_bytes == 4096);
  CHECK(r.candidates[1].launch_indices == std::vector<int>{2});
  CHECK(r.unresolved_launches == std::vector<int>{4});
  CHECK(r.distinct_shapes() == std::vector<BlockShape>{{16, 16, 1}});
  CHECK(r.max_threads() == 256);
  CHECK(r.is_known());
  CHECK(format_block_shape(r.candidates[0].shape) == "16×16");
}

TEST_CASE("non-constant dynamic shared memory is kept as a spelling") {
  Fixture f;
  auto l = make_launch(f.k(), std::array<std::int64_t, 3>{128, 1, 1}, "128");
  l.shared_bytes_spelling = "n * sizeof(float)";
  f.model.launches.push_back(l);
  auto r = f.resolve();
  REQUIRE(r.candidates.size() == 1);
  CHECK_FALSE(r.candidates[0].dynamic_shared_bytes.has_value());
  CHECK(r.candidates[0].dynamic_shared_spelling == "n * sizeof(float)");
}

TEST_CASE("then __launch_bounds__, as a 1-D shape") {
  Fixture f;
  f.k().launch_bounds = LaunchBounds{512, 2, "__launch_bounds__(512, 2)", {}};
  f.options.kernel_blocks["k"] = {64, 1, 1};
  f.model.launches.push_back(make_launch(f.k(), std::nullopt, "dim3(n)"));  // unresolved
  auto r = f.resolve();
  CHECK(r.source == BlockShapeSource::LaunchBounds);
  REQUIRE(r.candidates.size() == 1);
  CHECK(r.candidates[0].shape == BlockShape{512, 1, 1});
  CHECK_FALSE(r.candidates[0].dims_known);
  CHECK(r.candidates[0].description == "__launch_bounds__(512, 2)");
  CHECK(r.unresolved_launches == std::vector<int>{0});
}

TEST_CASE("then the per-kernel setting, by name or key") {
  Fixture f;
  f.k().launch_bounds = LaunchBounds{std::nullopt, 2, "__launch_bounds__(N, 2)", {}};  // not evaluable
  f.options.kernel_blocks["k"] = {32, 8, 1};
  f.options.default_block = BlockShape{128, 1, 1};
  auto r = f.resolve();
  CHECK(r.source == BlockShapeSource::KernelSetting);
  CHECK(r.candidates[0].shape == BlockShape{32, 8, 1});
  f.options.kernel_blocks.clear();
  f.options.kernel_blocks[f.k().key] = {64, 2, 1};
  CHECK(f.resolve().candidates[0].shape == BlockShape{64, 2, 1});
}

TEST_CASE("then the default setting, then the built-in default") {
  Fixture f;
  f.options.default_block = BlockShape{128, 1, 1};
  auto r = f.resolve();
  CHECK(r.source == BlockShapeSource::DefaultSetting);
  CHECK(r.candidates[0].shape == BlockShape{128, 1, 1});
  f.options.default_block.reset();
  r = f.resolve();
  CHECK(r.source == BlockShapeSource::BuiltinDefault);
  CHECK(r.candidates[0].shape == kBuiltinDefaultBlock);
  CHECK_FALSE(r.is_known());
  CHECK(std::string(to_string(r.source)) == "default");
}

TEST_CASE("templates: the pattern owns its instantiations' launches") {
  KernelModel m;
  Function pattern = make_kernel("scale", {"T *"});
  pattern.is_template = true;
  pattern.key = "scale<T>(T *)";
  Function inst = make_kernel("scale", {"float *"});
  inst.template_args = "<float, 256>";
  inst.key = "scale<float, 256>(float *)";
  m.functions = {pattern, inst};
  auto l = make_launch(inst, std::array<std::int64_t, 3>{256, 1, 1}, "256");
  l.template_args = "<float, 256>";
  m.launches.push_back(l);
  auto keyless = l;  // the front end could not resolve this one
  keyless.kernel_key.clear();
  keyless.template_args = "<double, 128>";
  keyless.block = {"128", std::array<std::int64_t, 3>{128, 1, 1}, {}};
  m.launches.push_back(keyless);

  AnalysisOptions o;
  CHECK(launches_of(m, pattern) == std::vector<int>{0, 1});
  CHECK(launches_of(m, inst) == std::vector<int>{0});
  auto r = resolve_block_shapes(m, pattern, o);
  CHECK(r.distinct_shapes().size() == 2);
}
