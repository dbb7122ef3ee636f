#include "agent/verifier/timing_stats.h"

#include <algorithm>
#include <numeric>

namespace warplens::verifier {

double percentile_sorted(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  double pos = q * static_cast<double>(sorted.size() - 1);
  auto lo = static_cast<std::size_t>(pos);
  std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  double frac = pos - static_cast<double>(lo);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

TimingSummary summarize_samples(std::vector<double> samples) {
  TimingSummary s;
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  s.runs = static_cast<int>(samples.size());
  s.median_us = percentile_sorted(samples, 0.5);
  s.p25_us = percentile_sorted(samples, 0.25);
  s.p75_us = percentile_sorted(samples, 0.75);
  s.min_us = samples.front();
  s.max_us = samples.back();
  s.mean_us = std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(samples.size());
  return s;
}

}  // namespace warplens::verifier
