#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "agent/verifier/compare.h"
#include "agent/verifier/poison.h"
#include "tests/unit/agent/verifier_test_support.h"

using namespace warplens::verifier;
using test::floats;

namespace {
const BufferLayout kF32{ElementType::F32, 0};
}

TEST_CASE("compare: fp32 within rtol/atol passes, beyond fails with the worst element") {
  Tolerance tol;  // 1e-4 / 1e-4
  auto e = floats({1.0f, 2.0f, 100.0f, -3.0f});
  SUBCASE("all within tolerance") {
    auto g = floats({1.00005f, 2.0f, 100.009f, -3.0f});
    auto c = compare_with_tolerance(e.data(), g.data(), e.size(), kF32, tol, {}, nullptr);
    CHECK(c.ok);
    CHECK(c.elements == 4);
    CHECK(c.max_abs_error == doctest::Approx(0.009).epsilon(0.01));
    REQUIRE(c.worst);
    CHECK(c.worst->index == 2);  // the largest error is reported even when passing
  }
  SUBCASE("one element out of tolerance") {
    auto g = floats({1.0f, 2.001f, 100.0f, -3.0f});
    auto c = compare_with_tolerance(e.data(), g.data(), e.size(), kF32, tol, {}, nullptr);
    CHECK_FALSE(c.ok);
    CHECK(c.mismatches == 1);
    REQUIRE(c.worst);
    CHECK(c.worst->index == 1);
    CHECK(c.worst->byte_offset == 4);
    CHECK(c.worst->expected == "2");
    CHECK(c.worst->got.substr(0, 5) == "2.000");
    CHECK(c.worst->problem == Problem::OutOfTolerance);
    CHECK(describe(*c.worst).find("element 1 (byte 4): expected 2, got 2.00") == 0);
  }
  SUBCASE("the worst of several is the one furthest beyond its allowance") {
    auto g = floats({1.02f, 2.0f, 100.5f, -3.0f});  // 1.02: 100x its allowance; 100.5: ~50x
    auto c = compare_with_tolerance(e.data(), g.data(), e.size(), kF32, tol, {}, nullptr);
    CHECK(c.mismatches == 2);
    CHECK(c.worst->index == 0);
  }
}

TEST_CASE("compare: NaN never equals, unless asked; infinities must match") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  Tolerance tol;
  auto e = floats({nan, inf, 1.0f});
  auto g = floats({nan, inf, 1.0f});
  auto c = compare_with_tolerance(e.data(), g.data(), e.size(), kF32, tol, {}, nullptr);
  CHECK_FALSE(c.ok);
  CHECK(c.worst->problem == Problem::NaN);
  CHECK(c.worst->index == 0);
  tol.nan_equal = true;
  CHECK(compare_with_tolerance(e.data(), g.data(), e.size(), kF32, tol, {}, nullptr).ok);
  auto g2 = floats({nan, -inf, 1.0f});
  CHECK_FALSE(compare_with_tolerance(e.data(), g2.data(), e.size(), kF32, tol, {}, nullptr).ok);
  auto g3 = floats({nan, inf, nan});
  auto c3 = compare_with_tolerance(e.data(), g3.data(), e.size(), kF32, tol, {}, nullptr);
  CHECK_FALSE(c3.ok);
  CHECK(c3.worst->index == 2);
}

TEST_CASE("compare: half precision uses the fp16 tolerance") {
  Tolerance tol;
  std::vector<std::uint8_t> e(4), g(4);
  auto put = [](std::vector<std::uint8_t>& b, int i, double v) {
    std::uint16_t h = double_to_half_bits(v);
    std::memcpy(b.data() + 2 * i, &h, 2);
  };
  put(e, 0, 1.0);
  put(e, 1, 0.5);
  put(g, 0, 1.005);  // within 1e-2
  put(g, 1, 0.5);
  CHECK(compare_with_tolerance(e.data(), g.data(), 4, {ElementType::F16, 0}, tol, {}, nullptr).ok);
  put(g, 0, 1.05);  // beyond
  CHECK_FALSE(compare_with_tolerance(e.data(), g.data(), 4, {ElementType::F16, 0}, tol, {}, nullptr).ok);
  // The same numbers as fp32 would fail the fp32 tolerance: the dtype decides.
  auto e32 = floats({1.0f}), g32 = floats({1.005f});
  CHECK_FALSE(compare_with_tolerance(e32.data(), g32.data(), 4, kF32, tol, {}, nullptr).ok);
}

TEST_CASE("compare: integers and unknown bytes compare exactly") {
  Tolerance tol;
  std::vector<std::uint8_t> e(8), g(8);
  int a[2] = {5, 1000000}, b[2] = {5, 1000001};
  std::memcpy(e.data(), a, 8);
  std::memcpy(g.data(), b, 8);
  auto c = compare_with_tolerance(e.data(), g.data(), 8, {ElementType::I32, 0}, tol, {}, nullptr);
  CHECK_FALSE(c.ok);
  CHECK(c.worst->index == 1);
  CHECK(c.worst->expected == "1000000");
  CHECK(c.worst->got == "1000001");
  CHECK_FALSE(compare_with_tolerance(e.data(), g.data(), 8, {ElementType::Bytes, 0}, tol, {}, nullptr).ok);
}

TEST_CASE("compare: bytes the original never writes must keep the poison") {
  Tolerance tol;
  auto expected = floats({1, 2, 0, 0});  // elements 2..3 unwritten by the original
  auto poison = make_poison(16, kF32, Poison::A);
  ByteRanges unwritten = {{8, 16}};
  auto got = floats({1, 2, 0, 0});
  std::memcpy(got.data() + 8, poison.data() + 8, 8);
  CHECK(compare_with_tolerance(expected.data(), got.data(), 16, kF32, tol, unwritten, poison.data()).ok);
  float stray = 3.0f;
  std::memcpy(got.data() + 12, &stray, 4);
  auto c = compare_with_tolerance(expected.data(), got.data(), 16, kF32, tol, unwritten, poison.data());
  CHECK_FALSE(c.ok);
  CHECK(c.stray_bytes == 4);
  CHECK(c.worst->problem == Problem::StrayWrite);
  CHECK(c.worst->index == 3);
  CHECK(c.worst->got == "3");
}

TEST_CASE("compare: an output left unwritten shows as NaN poison") {
  Tolerance tol;
  auto expected = floats({1, 2, 3, 4});
  auto got = make_poison(16, kF32, Poison::A);  // the kernel wrote nothing
  auto c = compare_with_tolerance(expected.data(), got.data(), 16, kF32, tol, {}, nullptr);
  CHECK_FALSE(c.ok);
  CHECK(c.mismatches == 4);
  CHECK(c.worst->problem == Problem::NaN);
}

TEST_CASE("compare_exact: first differing element; ignored ranges skipped") {
  auto a = floats({1, 2, 3, 4}), b = floats({1, 2, 3.0000002f, 5});
  auto c = compare_exact(a.data(), b.data(), 16, kF32);
  CHECK_FALSE(c.ok);
  CHECK(c.mismatches == 2);
  CHECK(c.worst->index == 2);
  CHECK(compare_exact(a.data(), b.data(), 16, kF32, {{8, 16}}).ok);
  CHECK(compare_exact(a.data(), a.data(), 16, kF32).ok);
}

TEST_CASE("layout phase: bytes before the first element compare as raw bytes") {
  Tolerance tol;
  std::vector<std::uint8_t> e(10, 0), g(10, 0);
  float v = 1.0f, w = 1.00001f;
  std::memcpy(e.data() + 2, &v, 4);
  std::memcpy(g.data() + 2, &w, 4);
  CHECK(compare_with_tolerance(e.data(), g.data(), 10, {ElementType::F32, 2}, tol, {}, nullptr).ok);
  g[0] = 1;
  auto c = compare_with_tolerance(e.data(), g.data(), 10, {ElementType::F32, 2}, tol, {}, nullptr);
  CHECK_FALSE(c.ok);
  CHECK(c.worst->byte_offset == 0);
}

TEST_CASE("unwritten_ranges: bytes equal to both poisons") {
  const std::uint64_t n = 64;
  auto pa = make_poison(n, kF32, Poison::A), pb = make_poison(n, kF32, Poison::B);
  for (std::uint64_t i = 0; i < n; ++i) CHECK(pa[i] != pb[i]);
  auto ra = pa, rb = pb;
  float one = 1.0f;
  for (int i = 0; i < 8; ++i) {  // elements 0..7 written
    std::memcpy(ra.data() + 4 * i, &one, 4);
    std::memcpy(rb.data() + 4 * i, &one, 4);
  }
  // A written byte that happens to equal poison A in one run is still written.
  ra[40] = 0xff;
  rb[40] = 0x00;
  auto r = unwritten_ranges(ra.data(), pa.data(), rb.data(), pb.data(), n);
  REQUIRE(r.size() == 2);
  CHECK(r[0] == ByteRange{32, 40});
  CHECK(r[1] == ByteRange{41, 64});
  CHECK(total_bytes(r) == 31);
}

TEST_CASE("fp16 / bf16 conversions round to nearest even") {
  CHECK(half_bits_to_double(0x3c00) == 1.0);
  CHECK(half_bits_to_double(0xc000) == -2.0);
  CHECK(half_bits_to_double(0x0001) == doctest::Approx(5.960464477539063e-08));
  CHECK(std::isinf(half_bits_to_double(0x7c00)));
  CHECK(std::isnan(half_bits_to_double(0x7e00)));
  CHECK(double_to_half_bits(1.0) == 0x3c00);
  CHECK(double_to_half_bits(65504.0) == 0x7bff);
  CHECK(double_to_half_bits(70000.0) == 0x7c00);
  CHECK(double_to_half_bits(5.960464477539063e-08) == 0x0001);
  CHECK(double_to_half_bits(1.0 + 1.0 / 2048) == 0x3c00);  // tie -> even
  CHECK(double_to_half_bits(1.0 + 3.0 / 2048) == 0x3c02);  // tie -> even (up)
  for (std::uint32_t h = 0; h < 0x7c00; h += 37)
    CHECK(double_to_half_bits(half_bits_to_double(static_cast<std::uint16_t>(h))) == h);
  CHECK(bf16_bits_to_double(0x3f80) == 1.0);
  CHECK(double_to_bf16_bits(1.0) == 0x3f80);
  CHECK(double_to_bf16_bits(3.140625) == 0x4049);
  CHECK(std::isnan(bf16_bits_to_double(double_to_bf16_bits(std::nan("")))));
}

TEST_CASE("poison B is a NaN for every float type and never equals poison A") {
  for (ElementType t : {ElementType::F32, ElementType::F64, ElementType::F16, ElementType::BF16}) {
    auto pb = make_poison(64, {t, 0}, Poison::B);
    auto pa = make_poison(64, {t, 0}, Poison::A);
    for (int i = 0; i + element_size(t) <= 64; i += element_size(t)) {
      CHECK(element_is_nan(t, pb.data() + i));
      CHECK(element_is_nan(t, pa.data() + i));
    }
    for (int i = 0; i < 64; ++i) CHECK(pa[i] != pb[i]);
  }
}
