// Per-kernel results for a code lens above the kernel: time per launch and
// the global-memory bandwidth it achieved against the GPU's peak.
//
// "Achieved bandwidth" here is what the kernel's global accesses requested:
// sectors (measured with SASS metrics) x 32 bytes per launch, divided by the
// mean duration of its uninstrumented launches. It counts L1-level requests,
// so cache hits raise it and it can exceed DRAM traffic; for streaming
// kernels the two agree. The peak is the theoretical DRAM bandwidth.
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
  std::optional<double> global_bytes_per_launch;
  std::optional<double> achieved_gbs;
  std::optional<double> fraction_of_peak;
  double peak_gbs = 0;                   // 0: unknown
  const Function* function = nullptr;    // the kernel in the model, when one was given and matched
  std::string title;                     // "52.1 µs/launch · 644 GB/s (13% of 4.80 TB/s peak)"
};

std::vector<KernelSummary> kernel_summaries(const Profile& p, const KernelModel* model = nullptr);

// The model's kernel for a measured kernel: same unqualified name; among
// several (templates, overloads) the one whose template arguments and
// parameter count fit the demangled name. nullptr when none.
const Function* find_model_kernel(const KernelModel& model, const std::string& demangled);

}  // namespace warplens::profile
