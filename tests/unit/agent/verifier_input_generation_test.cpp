#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>

#include "agent/verifier/element_ops.h"
#include "agent/verifier/input_generation.h"
#include "agent/verifier/plan_builder.h"
#include "tests/unit/agent/verifier_test_support.h"

using namespace warplens;
using namespace warplens::verifier;

namespace {
std::vector<float> as_floats(const std::vector<std::uint8_t>& b) {
  std::vector<float> v(b.size() / 4);
  std::memcpy(v.data(), b.data(), v.size() * 4);
  return v;
}
}  // namespace

TEST_CASE("layouts: typed from pointer parameters, names for reports, scalars") {
  test::TempDir dir;
  auto m = test::write_scale_add_capture(dir.path());
  auto sig = signature_from_symbol(m.launches[0].kernel);
  REQUIRE(sig);
  sig->params[0].name = "x";
  sig->params[2].name = "out";
  auto layout = make_launch_layout(m.launches[0], &*sig);
  REQUIRE(layout.allocations.size() == 3);
  CHECK(layout.allocations[0] == BufferLayout{ElementType::F32, 0});
  CHECK(layout.allocation_names[0] == "x (param 0)");
  CHECK(layout.allocation_names[1] == "param 1");
  CHECK(layout.allocation_names[2] == "out (param 2)");
  REQUIRE(layout.scalars.size() == 2);
  CHECK(layout.scalars[0] == ScalarSlot{3, 24, ElementType::F32});
  CHECK(layout.scalars[1] == ScalarSlot{4, 28, ElementType::I32});

  SUBCASE("integer arguments by parameter index (floats and pointers left out)") {
    auto params = m.launches[0].param_buffer;
    const std::int32_t n = 4099;
    std::memcpy(params.data() + 28, &n, 4);
    const ParamValues v = integer_params(layout, params);
    REQUIRE(v.size() == 1);
    CHECK(v.at(4) == 4099);
    CHECK(integer_params(layout, std::vector<std::uint8_t>(20)).empty());  // too short: nothing read
  }
  SUBCASE("without a signature everything is bytes") {
    auto raw = make_launch_layout(m.launches[0], nullptr);
    for (const auto& a : raw.allocations) CHECK(a.type == ElementType::Bytes);
    CHECK(raw.scalars.empty());
  }
  SUBCASE("two pointers of different types into one allocation make it bytes") {
    auto l = m.launches[0];
    l.pointers[1].allocation = 0;  // y aliases x's allocation...
    auto s2 = *sig;
    s2.params[1].element = ElementType::I32;  // ...as int
    auto mixed = make_launch_layout(l, &s2);
    CHECK(mixed.allocations[0].type == ElementType::Bytes);
  }
  SUBCASE("an interior pointer sets the element phase") {
    auto l = m.launches[0];
    l.pointers[0].offset_in_allocation = 6;  // not 4-aligned to the base
    auto shifted = make_launch_layout(l, &*sig);
    CHECK(shifted.allocations[0] == BufferLayout{ElementType::F32, 2});
  }
}

TEST_CASE("input sets: set 0 is the capture; fresh sets re-draw floats, keep ints, jitter float scalars") {
  test::TempDir dir;
  auto m = test::write_scale_add_capture(dir.path());
  auto sig = signature_from_symbol(m.launches[0].kernel);
  auto layout = make_launch_layout(m.launches[0], &*sig);
  std::vector<std::vector<std::uint8_t>> captured;
  for (const auto& a : m.launches[0].allocations)
    captured.push_back(capture::read_blob(dir.path(), a.before_blob, a.bytes, a.before_hash));

  auto set0 = make_input_set(m.launches[0], captured, layout, false, 0);
  CHECK(set0.allocations == captured);
  CHECK(set0.param_buffer == m.launches[0].param_buffer);

  auto fresh = make_input_set(m.launches[0], captured, layout, true, 17);
  auto again = make_input_set(m.launches[0], captured, layout, true, 17);
  auto other = make_input_set(m.launches[0], captured, layout, true, 18);
  CHECK(fresh.allocations == again.allocations);  // deterministic in the seed
  CHECK(fresh.param_buffer == again.param_buffer);
  CHECK(fresh.allocations[0] != other.allocations[0]);
  CHECK(fresh.allocations[0] != captured[0]);

  // Values come from the captured ones scaled by [0.5, 1.5]: signs and
  // zeros survive, the range is bounded.
  auto x = as_floats(captured[0]), fx = as_floats(fresh.allocations[0]);
  float lo = *std::min_element(x.begin(), x.end()), hi = *std::max_element(x.begin(), x.end());
  for (float v : fx) {
    CHECK(v >= 1.5f * lo - 1e-6f);
    CHECK(v <= 1.5f * hi + 1e-6f);
  }
  auto y = as_floats(fresh.allocations[1]);
  for (float v : y) CHECK(v > 0);  // y was all positive
  std::set<float> distinct(y.begin(), y.end());
  CHECK(distinct.size() > 10);

  // alpha jittered within [0.75, 1.25], n kept.
  float alpha;
  int n;
  std::memcpy(&alpha, fresh.param_buffer.data() + 24, 4);
  std::memcpy(&n, fresh.param_buffer.data() + 28, 4);
  CHECK(alpha != 2.5f);
  CHECK(alpha >= 0.75f * 2.5f);
  CHECK(alpha <= 1.25f * 2.5f);
  CHECK(n == 64);
}

TEST_CASE("input sets: integer buffers are kept as captured") {
  std::vector<std::uint8_t> captured(64);
  for (int i = 0; i < 64; ++i) captured[i] = static_cast<std::uint8_t>(i);
  std::vector<std::uint8_t> out(64);
  redraw_floats(captured.data(), out.data(), 64, {ElementType::I32, 0}, 5);
  CHECK(out == captured);
}

TEST_CASE("input sets: a large redraw split across threads equals the element-by-element draw") {
  // 3M floats after a 2-byte phase and before 3 trailing bytes: several
  // threads' worth, with edges that must keep their captured bytes.
  const std::uint64_t count = 3u << 20, phase = 2, bytes = phase + count * 4 + 3;
  std::vector<std::uint8_t> captured(bytes);
  for (std::uint64_t b = 0; b < bytes; ++b) captured[b] = static_cast<std::uint8_t>(b * 131 + 7);
  for (std::uint64_t i = 0; i < count; ++i) {
    const float v = static_cast<float>(i % 1000) - 500.0f;
    std::memcpy(captured.data() + phase + i * 4, &v, 4);
  }
  std::vector<std::uint8_t> got(bytes), want(bytes);
  redraw_floats(captured.data(), got.data(), bytes, {ElementType::F32, phase}, 1234);
  std::memcpy(want.data(), captured.data(), bytes);
  for (std::uint64_t i = 0; i < count; ++i)
    ops::redraw_element(static_cast<std::uint8_t>(ElementType::F32), captured.data() + phase, want.data() + phase,
                        count, 1234, i);
  CHECK(std::equal(got.begin(), got.begin() + phase, captured.begin()));
  CHECK(std::equal(got.end() - 3, got.end(), captured.end() - 3));
  CHECK(got == want);
  CHECK_FALSE(std::equal(got.begin() + phase, got.begin() + phase + 4096, captured.begin() + phase));
}

TEST_CASE("plan: captured sets first (the timed launch first), then fresh round-robin") {
  auto sets = plan_input_sets({3, 1}, 5, 100);
  REQUIRE(sets.size() == 5);
  CHECK(sets[0].launch == 3);
  CHECK_FALSE(sets[0].fresh);
  CHECK(sets[1].launch == 1);
  CHECK_FALSE(sets[1].fresh);
  CHECK(sets[2].fresh);
  CHECK(sets[2].launch == 3);
  CHECK(sets[3].launch == 1);
  CHECK(sets[4].seed == 104);
  for (int i = 0; i < 5; ++i) CHECK(sets[i].index == i);
  CHECK(plan_input_sets({0}, 0, 1).size() == 1);
}

TEST_CASE("plan: kernel selection by name, symbol or demangled name") {
  test::TempDir dir;
  auto m = test::write_scale_add_capture(dir.path());
  auto second = m.launches[0];
  second.index = 1;
  second.sequence = 1;
  m.launches.push_back(second);
  std::string error;
  auto s = select_kernel_launches(m, "scale_add", -1, &error);
  REQUIRE(s);
  CHECK(s->launches == std::vector<int>{0, 1});
  CHECK(select_kernel_launches(m, "_Z9scale_addPKfS0_Pffi", -1, &error));
  CHECK(select_kernel_launches(m, "scale_add(float const*, float const*, float*, float, int)", -1, &error));
  auto timed = select_kernel_launches(m, "scale_add", 1, &error);
  REQUIRE(timed);
  CHECK(timed->launches == std::vector<int>{1, 0});
  CHECK_FALSE(select_kernel_launches(m, "scale_add", 7, &error));
  CHECK_FALSE(select_kernel_launches(m, "nope", -1, &error));
  CHECK(error.find("no launch of `nope`") != std::string::npos);
}

TEST_CASE("plan: hang deadline scales with the original") {
  CHECK(candidate_run_deadline(0.01, 60) == doctest::Approx(2.0));
  CHECK(candidate_run_deadline(100, 60) == doctest::Approx(6.0));
  CHECK(candidate_run_deadline(10000, 60) == doctest::Approx(30.0));
}
