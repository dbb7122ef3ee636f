#include "agent/verifier/reward.h"

#include <cmath>
#include <cstdio>

namespace warplens::verifier {

bool faster_by_margin(double baseline_us, double candidate_us, double margin) {
  if (!(baseline_us > 0) || !(candidate_us > 0)) return false;
  return (baseline_us - candidate_us) / baseline_us > margin;
}

double median_standard_error(double iqr_us, int runs) {
  if (runs <= 0 || iqr_us <= 0) return 0;
  return 1.2533 * (iqr_us / 1.349) / std::sqrt(static_cast<double>(runs));
}

namespace {
template <class... A>
std::string fmt(const char* f, A... a) {
  char buf[256];
  std::snprintf(buf, sizeof buf, f, a...);
  return buf;
}
}  // namespace

RewardDecision decide_reward(const RewardInput& in) {
  RewardDecision d;
  if (!in.correct) {
    d.level = -1;
    d.reasons.push_back("incorrect: see the failed check");
    return d;
  }
  d.speedup = in.candidate_us > 0 ? in.original_us / in.candidate_us : 0;
  d.large = d.speedup > kLargeSpeedup;
  d.implausible = d.speedup > kImplausibleSpeedup;
  if (!faster_by_margin(in.original_us, in.candidate_us)) {
    d.level = 1;
    d.reasons.push_back(fmt("correct; %.2fx the original's speed (median %.2f us vs %.2f us), not more than 5%% faster",
                            d.speedup, in.candidate_us, in.original_us));
    return d;
  }
  const double noise = kNoiseStandardErrors * std::sqrt(in.original_se_us * in.original_se_us +
                                                        in.candidate_se_us * in.candidate_se_us);
  if (in.original_us - in.candidate_us <= noise) {
    d.level = 1;
    d.reasons.push_back(fmt("correct; %.2fx the original's speed (median %.2f us vs %.2f us), but the difference "
                            "(%.2f us) is within the timing noise (3 standard errors: %.2f us)",
                            d.speedup, in.candidate_us, in.original_us, in.original_us - in.candidate_us, noise));
    return d;
  }
  d.level = 2;
  d.reasons.push_back(fmt("correct and %.2fx faster than the original (median %.2f us vs %.2f us)", d.speedup,
                          in.candidate_us, in.original_us));
  if (!in.eager_us && !in.compiled_us) {
    if (!in.pytorch_problem.empty()) d.reasons.push_back("level 3 not assessed: " + in.pytorch_problem);
    return d;
  }
  if (!in.eager_us || !in.compiled_us) {
    d.reasons.push_back("level 3 not assessed: " +
                        (in.pytorch_problem.empty() ? std::string("PyTorch timing incomplete") : in.pytorch_problem));
    return d;
  }
  bool beats_eager = faster_by_margin(*in.eager_us, in.candidate_us);
  bool beats_compiled = faster_by_margin(*in.compiled_us, in.candidate_us);
  if (beats_eager && beats_compiled) {
    d.level = 3;
    d.reasons.push_back(fmt("more than 5%% faster than eager PyTorch (%.2f us) and torch.compile (%.2f us)",
                            *in.eager_us, *in.compiled_us));
  } else {
    d.reasons.push_back(fmt("not level 3: eager PyTorch %.2f us, torch.compile %.2f us, candidate %.2f us", *in.eager_us,
                            *in.compiled_us, in.candidate_us));
  }
  return d;
}

}  // namespace warplens::verifier
