#include "agent/verifier/plan_builder.h"

#include <algorithm>
#include <set>

#include "agent/verifier/kernel_signature.h"

namespace warplens::verifier {

std::optional<KernelLaunches> select_kernel_launches(const capture::CaptureManifest& manifest,
                                                     const std::string& kernel, int timing_launch,
                                                     std::string* error) {
  auto matches = [&](const capture::LaunchRecord& l) {
    return l.kernel == kernel || demangle_symbol(l.kernel) == kernel || kernel_base_name(l.kernel) == kernel;
  };
  std::vector<int> matching;
  for (const auto& l : manifest.launches)
    if (matches(l)) matching.push_back(l.index);
  if (matching.empty()) {
    if (error) {
      std::set<std::string> names;
      for (const auto& l : manifest.launches) names.insert(demangle_symbol(l.kernel));
      *error = "the capture has no launch of `" + kernel + "`";
      if (names.empty()) *error += " (it holds no launches at all";
      else {
        *error += " (it holds:";
        for (const auto& n : names) *error += " " + n + ";";
      }
      *error += ")";
      if (!manifest.refusals.empty()) *error += "; refused: " + manifest.refusals.front().reason;
    }
    return std::nullopt;
  }
  int first = matching.front();
  if (timing_launch >= 0) {
    if (std::find(matching.begin(), matching.end(), timing_launch) == matching.end()) {
      if (error) *error = "launch " + std::to_string(timing_launch) + " of the capture is not a launch of `" + kernel + "`";
      return std::nullopt;
    }
    first = timing_launch;
  }
  KernelLaunches out;
  auto launch_at = [&](int index) -> const capture::LaunchRecord& {
    for (const auto& l : manifest.launches)
      if (l.index == index) return l;
    return manifest.launches.front();
  };
  out.symbol = launch_at(first).kernel;
  out.launches.push_back(first);
  for (int i : matching)
    if (i != first && launch_at(i).kernel == out.symbol) out.launches.push_back(i);
  return out;
}

std::vector<InputSetSpec> plan_input_sets(const std::vector<int>& launches, int count, std::uint64_t seed) {
  std::vector<InputSetSpec> sets;
  count = std::max(count, 1);
  for (int l : launches) {
    if (static_cast<int>(sets.size()) >= count) break;
    sets.push_back({static_cast<int>(sets.size()), l, false, 0, {}});
  }
  std::size_t k = 0;
  while (static_cast<int>(sets.size()) < count && !launches.empty()) {
    int index = static_cast<int>(sets.size());
    sets.push_back({index, launches[k++ % launches.size()], true, seed + static_cast<std::uint64_t>(index), {}});
  }
  return sets;
}

double candidate_run_deadline(double original_max_run_ms, double timeout_s) {
  double d = 50.0 * original_max_run_ms / 1000.0 + 1.0;
  d = std::max(d, 2.0);
  if (timeout_s > 0) d = std::min(d, std::max(1.0, timeout_s / 2));
  return d;
}

}  // namespace warplens::verifier
