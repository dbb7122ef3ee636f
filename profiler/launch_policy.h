// Which launches the injection library measures with SASS metrics.
//
// Instrumented launches run patched code (slower, and their durations are
// not representative), so the library measures few of them: only kernels
// whose name matches the filter, only the first `metric_launches` launches
// of each, and only until the SASS collection has cost `budget_ms` of wall
// time; everything else is timed through the Activity API alone.
//
// Plain C++ and thread-safe: launch callbacks arrive on the program's threads.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "profiler/profile_data.h"

namespace warplens::profile {

class LaunchPolicy {
 public:
  // An invalid regex selects every kernel and is reported in `regex_error`
  // (the runner validates the regex before it starts the program).
  explicit LaunchPolicy(const Settings& settings, std::string* regex_error = nullptr);

  // Does the kernel-name filter select this kernel? Matched (regex_search)
  // against the demangled and the mangled name.
  bool selected(const std::string& mangled);

  struct Decision {
    bool selected = false;       // the kernel passes the name filter
    bool measure = false;        // measure this launch with SASS metrics
    std::uint64_t index = 0;     // 0-based launch number of this kernel
    bool budget_refused = false; // would have been measured, but the budget is spent
  };
  // Counts the launch and decides. `metrics_available` is false once CUPTI
  // refused SASS metrics (then nothing is measured).
  Decision on_launch(const std::string& mangled, bool metrics_available);

  // The caller reports what a measured launch cost (patching, sync, flush).
  void add_overhead_ms(double ms);
  double overhead_ms() const;
  bool budget_exhausted() const;

  std::uint64_t launches(const std::string& mangled) const;
  std::uint64_t measured(const std::string& mangled) const;

  // Every kernel the filter selected and on_launch() saw, with its launch
  // count: the kernels of a pass without the Activity API (the metrics pass).
  struct Seen {
    std::string mangled;
    std::uint64_t launches = 0;
    std::uint64_t measured = 0;
  };
  std::vector<Seen> selected_kernels() const;

 private:
  struct KernelState {
    bool selected = false;
    std::uint64_t launches = 0;
    std::uint64_t measured = 0;
  };
  KernelState& state(const std::string& mangled);  // requires mu_

  Settings settings_;
  std::optional<std::regex> filter_;
  mutable std::mutex mu_;
  std::map<std::string, KernelState> kernels_;
  double overhead_ms_ = 0;
};

}  // namespace warplens::profile
