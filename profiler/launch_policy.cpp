#include "profiler/launch_policy.h"

#include "profiler/demangle.h"

namespace warplens::profile {

LaunchPolicy::LaunchPolicy(const Settings& settings, std::string* regex_error)
    : settings_(settings) {
  if (settings_.kernel_regex.empty()) return;
  try {
    filter_.emplace(settings_.kernel_regex, std::regex::ECMAScript | std::regex::optimize);
  } catch (const std::regex_error& e) {
    if (regex_error)
      *regex_error = "invalid kernel filter \"" + settings_.kernel_regex + "\": " + e.what() +
                     "; profiling every kernel";
  }
}

LaunchPolicy::KernelState& LaunchPolicy::state(const std::string& mangled) {
  auto [it, inserted] = kernels_.try_emplace(mangled);
  if (inserted) {
    it->second.selected = !filter_ || std::regex_search(demangle(mangled), *filter_) ||
                          std::regex_search(mangled, *filter_);
  }
  return it->second;
}

bool LaunchPolicy::selected(const std::string& mangled) {
  std::lock_guard lock(mu_);
  return state(mangled).selected;
}

LaunchPolicy::Decision LaunchPolicy::on_launch(const std::string& mangled, bool metrics_available) {
  std::lock_guard lock(mu_);
  KernelState& k = state(mangled);
  Decision d;
  d.selected = k.selected;
  d.index = k.launches++;
  if (!k.selected || !metrics_available || !settings_.metrics) return d;
  if (k.measured >= std::uint64_t(settings_.metric_launches)) return d;
  if (overhead_ms_ >= settings_.budget_ms) {
    d.budget_refused = true;
    return d;
  }
  d.measure = true;
  ++k.measured;
  return d;
}

void LaunchPolicy::add_overhead_ms(double ms) {
  std::lock_guard lock(mu_);
  overhead_ms_ += ms;
}

double LaunchPolicy::overhead_ms() const {
  std::lock_guard lock(mu_);
  return overhead_ms_;
}

bool LaunchPolicy::budget_exhausted() const {
  std::lock_guard lock(mu_);
  return overhead_ms_ >= settings_.budget_ms;
}

std::uint64_t LaunchPolicy::launches(const std::string& mangled) const {
  std::lock_guard lock(mu_);
  auto it = kernels_.find(mangled);
  return it == kernels_.end() ? 0 : it->second.launches;
}

std::uint64_t LaunchPolicy::measured(const std::string& mangled) const {
  std::lock_guard lock(mu_);
  auto it = kernels_.find(mangled);
  return it == kernels_.end() ? 0 : it->second.measured;
}

std::vector<LaunchPolicy::Seen> LaunchPolicy::selected_kernels() const {
  std::lock_guard lock(mu_);
  std::vector<Seen> out;
  for (const auto& [mangled, k] : kernels_)
    if (k.selected && k.launches > 0) out.push_back({mangled, k.launches, k.measured});
  return out;
}

}  // namespace warplens::profile
