#include <doctest/doctest.h>

#include "agent/verifier/reward.h"
#include "agent/verifier/timing_stats.h"

using namespace warplens::verifier;

TEST_CASE("reward: -1 incorrect, 1 correct, 2 more than 5% faster, 3 also beats eager and compile") {
  RewardInput in;
  in.correct = false;
  in.original_us = 100;
  in.candidate_us = 10;
  CHECK(decide_reward(in).level == -1);

  in.correct = true;
  in.candidate_us = 96;  // 4% faster: not enough
  CHECK(decide_reward(in).level == 1);
  in.candidate_us = 95;  // exactly 5%: not more than 5%
  CHECK(decide_reward(in).level == 1);
  in.candidate_us = 94.9;
  auto d = decide_reward(in);
  CHECK(d.level == 2);
  CHECK(d.speedup == doctest::Approx(100 / 94.9));
  in.candidate_us = 120;  // slower
  CHECK(decide_reward(in).level == 1);

  in.candidate_us = 50;
  in.eager_us = 80;
  in.compiled_us = 60;
  CHECK(decide_reward(in).level == 3);
  in.compiled_us = 52;  // only 3.8% faster than compile
  CHECK(decide_reward(in).level == 2);
  in.compiled_us.reset();
  in.pytorch_problem = "torch.compile failed: boom";
  d = decide_reward(in);
  CHECK(d.level == 2);
  CHECK(d.reasons.back().find("torch.compile failed") != std::string::npos);
}

TEST_CASE("reward: large (> 10x) and implausible (> 1000x) speedups are told apart") {
  RewardInput in;
  in.correct = true;
  in.original_us = 1000;
  in.candidate_us = 90;
  CHECK(decide_reward(in).large);
  CHECK_FALSE(decide_reward(in).implausible);
  in.candidate_us = 101;
  CHECK_FALSE(decide_reward(in).large);
  in.candidate_us = 0.9;
  CHECK(decide_reward(in).implausible);
}

TEST_CASE("timing summary: median, quartiles, spread") {
  auto s = summarize_samples({5, 1, 4, 2, 3});
  CHECK(s.runs == 5);
  CHECK(s.median_us == 3);
  CHECK(s.p25_us == 2);
  CHECK(s.p75_us == 4);
  CHECK(s.min_us == 1);
  CHECK(s.max_us == 5);
  CHECK(s.mean_us == 3);
  CHECK(s.spread() == doctest::Approx(2.0 / 3));
  CHECK(summarize_samples({}).runs == 0);
  CHECK(summarize_samples({1, 2}).median_us == 1.5);
}

TEST_CASE("reward: a speedup within the timing noise is not level 2") {
  RewardInput in;
  in.correct = true;
  in.original_us = 7.2;
  in.candidate_us = 6.8;  // 5.9% faster on medians
  CHECK(decide_reward(in).level == 2);  // noise unknown: the medians decide
  // IQR 17% of the median over 30 runs each (a 7 us kernel on the H200).
  in.original_se_us = median_standard_error(0.17 * 7.2, 30);
  in.candidate_se_us = median_standard_error(0.17 * 6.8, 30);
  RewardDecision d = decide_reward(in);
  CHECK(d.level == 1);
  REQUIRE(d.reasons.size() == 1);
  CHECK(d.reasons[0].find("within the timing noise") != std::string::npos);
  // The same medians measured tightly (IQR 2%): faster beyond the noise.
  in.original_se_us = median_standard_error(0.02 * 7.2, 30);
  in.candidate_se_us = median_standard_error(0.02 * 6.8, 30);
  CHECK(decide_reward(in).level == 2);
  CHECK(median_standard_error(1.349, 1) == doctest::Approx(1.2533));
  CHECK(median_standard_error(0, 30) == 0);
}
