// Kernel launches as the Activity API reports them, turned into the
// profile's per-kernel records.
//
// Activity records arrive in buffer order, not launch order, and carry no
// launch number. Their correlation ids, however, increase with the API call
// that launched them, so the table sorts each kernel's records by
// correlation id to number its launches. A launch is "instrumented" when
// the launch callback measured it with SASS metrics: its correlation id was
// registered with mark_instrumented(). Should those ids not match the
// activity records (an unexpected CUPTI behaviour), the table falls back to
// the launch numbers the policy measured and says so in a warning, so that
// instrumented durations never leak into the timing.
//
// Plain C++; not thread-safe (the injection library serialises access).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "profiler/profile_data.h"

namespace warplens::profile {

class LaunchTable {
 public:
  explicit LaunchTable(std::size_t max_records = 2'000'000) : max_records_(max_records) {}

  // One CONCURRENT_KERNEL activity record. `launch.index` and
  // `launch.instrumented` are ignored (computed in kernels()).
  void add(const std::string& mangled, std::uint32_t correlation_id, const Launch& launch);

  // Registers a launch measured with SASS metrics: the correlation ids of
  // its API calls (driver launch and, when nested, the runtime call) and the
  // kernel's launch number as counted by the launch callbacks.
  void mark_instrumented(const std::string& mangled, const std::vector<std::uint32_t>& correlation_ids,
                         std::uint64_t launch_index);

  // Builds the kernels (sorted by name) for `pass`; `launch_records` caps the
  // individually listed launches per kernel. Problems become warnings.
  std::vector<Kernel> kernels(int launch_records, const std::string& pass,
                              std::vector<Warning>* warnings) const;

  std::size_t record_count() const { return stored_; }

 private:
  struct Record {
    std::uint32_t correlation_id;
    Launch launch;
  };
  struct PerKernel {
    std::vector<Record> records;
    std::set<std::uint64_t> instrumented_indices;
    Timing overflow_timing;        // records beyond max_records_: timed, not listed
    std::uint64_t overflow_launches = 0;
  };
  std::map<std::string, PerKernel> kernels_;
  std::set<std::uint32_t> instrumented_ids_;
  std::size_t max_records_;
  std::size_t stored_ = 0;
  bool overflowed_ = false;
};

}  // namespace warplens::profile
