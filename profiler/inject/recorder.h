// Everything the injection library has learned so far, behind one mutex:
// devices, launches (from the Activity API), memcpy totals, warnings, the
// launch policy. At exit it becomes a profile::Profile.
//
// Callers: launch callbacks (program threads), activity buffer callbacks
// (a CUPTI thread), resource callbacks, the exit handler.
#pragma once

#include <cuda.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "profiler/injection_config.h"
#include "profiler/launch_policy.h"
#include "profiler/launch_table.h"
#include "profiler/profile_data.h"

namespace warplens::inject {

class Recorder {
 public:
  explicit Recorder(profile::InjectionConfig config);

  const profile::InjectionConfig& config() const { return config_; }
  profile::LaunchPolicy& policy() { return policy_; }

  // Adds a warning once (same code and message) and logs it.
  void warn(const std::string& code, const std::string& message);

  // Queries the device's attributes the first time it is seen.
  void note_device(CUdevice device);
  void set_chip(int device, const std::string& chip);

  // Activity API records.
  void add_kernel(const std::string& mangled, std::uint32_t correlation_id,
                  const profile::Launch& launch);
  void add_memcpy(int copy_kind, std::uint64_t bytes, std::uint64_t duration_ns);
  void add_dropped_activity(std::size_t n);

  void mark_instrumented(const std::string& mangled, const std::vector<std::uint32_t>& ids,
                         std::uint64_t launch_index);

  // The profile as far as the recorder knows it (no SASS data: the SASS
  // collector adds lines and counters).
  profile::Profile build();

 private:
  profile::InjectionConfig config_;
  profile::LaunchPolicy policy_;
  std::chrono::steady_clock::time_point start_;
  std::string started_at_;

  std::mutex mu_;
  std::map<int, profile::Device> devices_;
  profile::LaunchTable launches_;
  profile::MemcpyTotals memcpy_;
  std::vector<profile::Warning> warnings_;
  std::map<std::string, std::uint64_t> instrumented_;  // launches run with SASS metrics
  std::uint64_t dropped_activity_ = 0;
};

}  // namespace warplens::inject
