// The optimize run recorded on the H200 (tests/fixtures/optimize/h200/,
// docs/benchmarks.md): every recorded level must be the one the reward rule
// gives for the recorded timings, and the summary's ratios must follow from
// its times. Catches a reward rule or summary changed away from what the
// GPU run reported (the level-3 bug of run 3 left best_level at 2 while the
// PyTorch times said 3).
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <optional>
#include <string>

#include "agent/candidate_verifier.h"

namespace {

nlohmann::json recorded_summary() {
  std::ifstream in(std::string(WARPLENS_SOURCE_DIR) + "/tests/fixtures/optimize/h200/summary.json");
  REQUIRE(in);
  return nlohmann::json::parse(in);
}

}  // namespace

TEST_CASE("recorded H200 optimize run: levels follow the reward rule from the recorded times") {
  const nlohmann::json s = recorded_summary();
  REQUIRE(s.at("format") == "warplens-optimize-summary/1");
  const auto& programs = s.at("programs");
  REQUIRE(programs.size() == 10);
  int level3 = 0;
  double log_sum = 0;
  for (const auto& p : programs) {
    INFO(p.at("name").get<std::string>());
    const double original = p.at("original_ms"), best = p.at("best_ms");
    std::optional<double> eager, compiled;
    if (p.contains("eager_ms")) eager = p.at("eager_ms").get<double>();
    if (p.contains("compiled_ms")) compiled = p.at("compiled_ms").get<double>();
    REQUIRE(eager);     // every example has a PyTorch reference
    REQUIRE(compiled);
    const auto level = warplens::agent::reward_level(true, original, best, eager, compiled);
    CHECK(warplens::agent::to_int(level) == p.at("best_level").get<int>());
    CHECK(p.at("best_speedup").get<double>() == doctest::Approx(original / best).epsilon(1e-6));
    CHECK(p.at("speedup_vs_eager").get<double>() == doctest::Approx(*eager / best).epsilon(1e-6));
    CHECK(p.at("speedup_vs_compile").get<double>() == doctest::Approx(*compiled / best).epsilon(1e-6));
    CHECK(p.at("verified_faster").get<int>() >= 1);
    if (p.at("best_level") == 3) ++level3;
    log_sum += std::log(p.at("best_speedup").get<double>());
  }
  CHECK(level3 == 8);
  CHECK(s.at("geomean_speedup").get<double>() == doctest::Approx(std::exp(log_sum / 10)).epsilon(1e-6));
}
