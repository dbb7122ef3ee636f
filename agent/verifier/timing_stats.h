// Summary statistics of timed runs: the median decides, the spread
// (interquartile range over the median) says how much to trust it.
#pragma once

#include <vector>

namespace warplens::verifier {

struct TimingSummary {
  int runs = 0;
  double median_us = 0;
  double p25_us = 0;
  double p75_us = 0;
  double min_us = 0;
  double max_us = 0;
  double mean_us = 0;
  // (p75 - p25) / median; 0 when there are no runs.
  double spread() const { return median_us > 0 ? (p75_us - p25_us) / median_us : 0; }
};

TimingSummary summarize_samples(std::vector<double> samples_us);

// Linear-interpolated percentile of sorted samples, q in [0, 1].
double percentile_sorted(const std::vector<double>& sorted, double q);

}  // namespace warplens::verifier
