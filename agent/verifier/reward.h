// The reward levels of the CUDA Agent paper (arXiv 2602.24286, section 3.2 as
// re-implemented elsewhere; see docs/verifier.md):
//   -1  incorrect (does not compile, fails any check, or is demoted)
//    1  correct, not more than 5% faster than the original
//    2  correct and more than 5% faster than the original
//    3  also more than 5% faster than eager PyTorch and torch.compile, when a
//       PyTorch reference of the same computation was supplied
// "Faster by more than 5%" means (t_base - t_new) / t_base > 0.05, on
// medians, and (when the spreads are known) by more than the timing noise:
// the difference of the medians must exceed three standard errors of it,
// each median's estimated from its runs' interquartile range
// (se = 1.2533 * (IQR / 1.349) / sqrt(runs)). Without that, two runs of the
// same kernel of a few microseconds came out "faster" by chance often
// enough to matter (the original verified as its own candidate must be 1).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace warplens::verifier {

inline constexpr double kFasterMargin = 0.05;
// Above kLargeSpeedup a speedup is offered only with complete evidence
// (require_complete_evidence in verdict_builder.h): naive kernels that
// serialise on one atomic or read a row per thread really do become 10-100x
// faster, and a blanket review rule withheld exactly those (H200 runs of
// 2026-12-02). Above kImplausibleSpeedup nothing is offered unreviewed.
inline constexpr double kLargeSpeedup = 10.0;
inline constexpr double kImplausibleSpeedup = 1000.0;
inline constexpr double kNoiseStandardErrors = 3.0;

// The standard error of a median of `runs` samples with interquartile range
// `iqr_us` (normal approximation); 0 without runs.
double median_standard_error(double iqr_us, int runs);

bool faster_by_margin(double baseline_us, double candidate_us, double margin = kFasterMargin);

struct RewardInput {
  bool correct = false;
  double original_us = 0;
  double candidate_us = 0;
  // Noise of the two medians (standard errors); 0: unknown, not used.
  double original_se_us = 0;
  double candidate_se_us = 0;
  std::optional<double> eager_us;     // PyTorch eager, when a reference was timed
  std::optional<double> compiled_us;  // torch.compile, when it worked
  std::string pytorch_problem;        // why eager/compile times are missing, if asked for
};

struct RewardDecision {
  int level = -1;
  double speedup = 0;                 // original / candidate
  bool large = false;                 // speedup > kLargeSpeedup: needs complete evidence
  bool implausible = false;           // speedup > kImplausibleSpeedup: held for review
  std::vector<std::string> reasons;   // why this level, one sentence each
};

RewardDecision decide_reward(const RewardInput& in);

}  // namespace warplens::verifier
