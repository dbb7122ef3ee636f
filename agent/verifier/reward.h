// The reward levels of the CUDA Agent paper (arXiv 2602.24286, section 3.2 as
// re-implemented elsewhere; see docs/verifier.md):
//   -1  incorrect (does not compile, fails any check, or is demoted)
//    1  correct, not more than 5% faster than the original
//    2  correct and more than 5% faster than the original
//    3  also more than 5% faster than eager PyTorch and torch.compile, when a
//       PyTorch reference of the same computation was supplied
// "Faster by more than 5%" means (t_base - t_new) / t_base > 0.05.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace warplens::verifier {

inline constexpr double kFasterMargin = 0.05;
inline constexpr double kImplausibleSpeedup = 10.0;

bool faster_by_margin(double baseline_us, double candidate_us, double margin = kFasterMargin);

struct RewardInput {
  bool correct = false;
  double original_us = 0;
  double candidate_us = 0;
  std::optional<double> eager_us;     // PyTorch eager, when a reference was timed
  std::optional<double> compiled_us;  // torch.compile, when it worked
  std::string pytorch_problem;        // why eager/compile times are missing, if asked for
};

struct RewardDecision {
  int level = -1;
  double speedup = 0;                 // original / candidate
  bool implausible = false;           // speedup > 10x: flag for review
  std::vector<std::string> reasons;   // why this level, one sentence each
};

RewardDecision decide_reward(const RewardInput& in);

}  // namespace warplens::verifier
