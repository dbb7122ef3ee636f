// The tolerance for reordered float sums (agent/verifier/reassociation.h):
// a long sum added in another order passes only with the declaration, and a
// sum that loses precision (half-precision accumulation, a dropped term)
// fails with it too.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "agent/verifier/compare.h"
#include "agent/verifier/reassociation.h"
#include "agent/verifier/verifier_json.h"

using namespace warplens::verifier;

namespace {

const BufferLayout kF32{ElementType::F32, 0};

std::vector<std::uint8_t> bytes_of(const std::vector<float>& v) {
  std::vector<std::uint8_t> b(v.size() * 4);
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

float half_round(float x) {  // round to the nearest fp16 value (normal range)
  int e;
  const float m = std::frexp(x, &e);
  return std::ldexp(std::nearbyint(std::ldexp(m, 11)), e - 11);
}

// Row sums of a rows x cols matrix of values in [-1, 1], in three orders.
struct RowSums {
  std::vector<float> sequential, tree, half, dropped;
};
RowSums row_sums(int rows, int cols) {
  std::mt19937 gen(7);
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  RowSums s;
  for (int r = 0; r < rows; ++r) {
    std::vector<float> x(cols);
    for (auto& v : x) v = d(gen);
    float acc = 0, h = 0, dr = 0;
    for (int c = 0; c < cols; ++c) {
      acc += x[c];
      h = half_round(h + half_round(x[c]));
      if (c != cols / 2) dr += x[c];
    }
    // A warp per row: 32 strided partial sums, then a shuffle tree.
    std::vector<float> lane(32, 0.f);
    for (int c = 0; c < cols; ++c) lane[c % 32] += x[c];
    for (int o = 16; o > 0; o >>= 1)
      for (int l = 0; l < o; ++l) lane[l] += lane[l + o];
    s.sequential.push_back(acc);
    s.tree.push_back(lane[0]);
    s.half.push_back(h);
    s.dropped.push_back(dr);
  }
  return s;
}

BufferComparison compare(const std::vector<float>& expected, const std::vector<float>& got, double extra_atol) {
  Tolerance tol;
  tol.atol_f32 += extra_atol;
  auto e = bytes_of(expected), g = bytes_of(got);
  return compare_with_tolerance(e.data(), g.data(), e.size(), kF32, tol, {}, nullptr);
}

}  // namespace

TEST_CASE("reassociation: terms parse, print and are bounded by the elements read") {
  std::string why;
  auto r = parse_reassociation("p3*p2*4", &why);
  REQUIRE(r);
  CHECK(describe(*r) == "p3*p2*4");
  CHECK(reassociated_terms(*r, {{3, 10}, {2, 5}}, 1000) == 200);
  CHECK(reassociated_terms(*r, {{3, 1000}, {2, 1000}}, 4096) == 4096);  // capped at the inputs
  CHECK(reassociated_terms(*r, {{3, 10}}, 777) == 777);                 // a missing parameter: unknown
  CHECK(reassociated_terms(*r, {{3, -1}, {2, 5}}, 777) == 777);         // not positive: unknown
  auto unknown = parse_reassociation("inputs", &why);
  REQUIRE(unknown);
  CHECK(unknown->terms.empty());
  CHECK(reassociated_terms(*unknown, {}, 12345) == 12345);
  auto p0 = parse_reassociation("p0", &why);
  REQUIRE(p0);
  CHECK(p0->terms.at(0).param == 0);
  for (const char* bad : {"", "q3", "p", "p-1", "0", "3*", "p1 p2", "1.5"}) {
    CAPTURE(bad);
    CHECK_FALSE(parse_reassociation(bad, &why));
    CHECK_FALSE(why.empty());
  }
  CHECK(unit_roundoff(ElementType::F32) == std::ldexp(1.0, -24));
  CHECK(unit_roundoff(ElementType::I32) == 0);
  CHECK(reassociation_atol(ElementType::F32, 1, 100.0) == 0);
  CHECK(reassociation_atol(ElementType::F32, 4096, 1.0) == doctest::Approx(8 * 64 * std::ldexp(1.0, -24)));
}

TEST_CASE("reassociation: a warp-per-row tree sum passes with the declaration only; precision losses fail") {
  // 256 rows of 65536 terms: long enough that the two orders differ by more
  // than KernelBench's 1e-4 + 1e-4·|expected| somewhere.
  const int rows = 256, cols = 65536;
  RowSums s = row_sums(rows, cols);
  BufferComparison strict = compare(s.sequential, s.tree, 0);
  REQUIRE_FALSE(strict.ok);
  REQUIRE(strict.worst);
  CHECK(strict.worst->problem == Problem::OutOfTolerance);
  CHECK(strict.max_abs_expected > 0);

  Reassociation declared{{Extent{2, 0}}};
  const std::uint64_t n = reassociated_terms(declared, {{2, cols}}, std::uint64_t{rows} * cols);
  CHECK(n == static_cast<std::uint64_t>(cols));
  const double extra = reassociation_atol(ElementType::F32, n, strict.max_abs_expected);
  CHECK(compare(s.sequential, s.tree, extra).ok);

  // Half-precision accumulation and a dropped term are not rounding order.
  BufferComparison half = compare(s.sequential, s.half, extra);
  CHECK_FALSE(half.ok);
  BufferComparison dropped = compare(s.sequential, s.dropped, extra);
  CHECK_FALSE(dropped.ok);
}

TEST_CASE("reassociation: the replay plan carries the declaration") {
  ReplayPlan plan;
  plan.version = kReplayProtocolVersion;
  plan.reassociation = Reassociation{{Extent{4, 0}, Extent{-1, 8}}};
  ReplayPlan back = nlohmann::json::parse(to_json_text(plan)).get<ReplayPlan>();
  REQUIRE(back.reassociation);
  CHECK(*back.reassociation == *plan.reassociation);
  ReplayPlan none;
  none.version = kReplayProtocolVersion;
  CHECK_FALSE(nlohmann::json::parse(to_json_text(none)).get<ReplayPlan>().reassociation);
}
