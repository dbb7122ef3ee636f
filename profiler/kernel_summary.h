// Per-kernel results for a code lens above the kernel: time per launch and
// the global-memory bandwidth it achieved against the GPU's peak.
//
// Bandwidth comes from the SASS sector counts of the measured launches and
// the mean duration of the uninstrumented ones:
//   effective = ideal sectors x 32 B / time: the data the kernel's accesses
//               needed, at the rate it got it (the usual "effective
//               bandwidth" of a transpose or a copy). Shown in the lens and
//               compared with the peak.
//   requested = sectors x 32 B / time: what its accesses actually asked the
//               memory system for, excess sectors of uncoalesced accesses
//               included.
// Both count L1-level requests: a kernel that re-reads cached data can go
// above DRAM traffic. The peak is the theoretical DRAM bandwidth.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/kernel_model.h"
#include "profiler/profile_data.h"

namespace warplens::profile {

struct KernelSummary {
  std::string name;                      // demangled
  std::string mangled;
  std::uint64_t launches = 0;
  std::uint64_t metric_launches = 0;
  std::uint64_t timed_launches = 0;      // uninstrumented launches behind mean_ns
  std::optional<double> mean_ns;
  std::optional<double> effective_bytes_per_launch;  // ideal global sectors x 32
  std::optional<double> requested_bytes_per_launch;  // global sectors x 32
  std::optional<double> effective_gbs;
  std::optional<double> requested_gbs;
  std::optional<double> fraction_of_peak;            // effective / peak
  double peak_gbs = 0;                   // 0: unknown
  const Function* function = nullptr;    // the kernel in the model, when one was given and matched
  std::string title;  // "35.2 µs/launch · 954 GB/s effective (19% of 4.92 TB/s peak) · 3 launches"
};

std::vector<KernelSummary> kernel_summaries(const Profile& p, const KernelModel* model = nullptr);

// The model's kernel for a measured kernel: same unqualified name; among
// several (templates, overloads) the one whose template arguments and
// parameter count fit the demangled name. nullptr when none.
const Function* find_model_kernel(const KernelModel& model, const std::string& demangled);

}  // namespace warplens::profile
