#include "agent/candidate_verifier.h"

namespace warplens::agent {

int to_int(RewardLevel l) { return static_cast<int>(l); }

const char* describe(RewardLevel l) {
  switch (l) {
    case RewardLevel::Incorrect: return "incorrect";
    case RewardLevel::Correct: return "correct, not faster";
    case RewardLevel::Faster: return "correct and faster than the original";
    case RewardLevel::FasterThanPyTorch: return "faster than the original, eager PyTorch and torch.compile";
  }
  return "?";
}

bool faster_by_5_percent(double base_ms, double new_ms) {
  return base_ms > 0 && new_ms > 0 && (base_ms - new_ms) / base_ms > 0.05;
}

RewardLevel reward_level(bool correct, double original_ms, double candidate_ms, std::optional<double> eager_ms,
                         std::optional<double> compiled_ms) {
  if (!correct) return RewardLevel::Incorrect;
  if (!faster_by_5_percent(original_ms, candidate_ms)) return RewardLevel::Correct;
  if (eager_ms && compiled_ms && faster_by_5_percent(*eager_ms, candidate_ms) &&
      faster_by_5_percent(*compiled_ms, candidate_ms))
    return RewardLevel::FasterThanPyTorch;
  return RewardLevel::Faster;
}

}  // namespace warplens::agent
