// Hover text that puts the static prediction beside the measurement, so the
// user sees at once whether the analysis was right:
//   - on a measured line: one table per measured finding, with the static
//     finding of the same code on that line (or "not predicted");
//   - on a kernel's name: registers, shared memory and block size as
//     predicted (ptxas + occupancy) and as launched, with the time and
//     bandwidth measured.
// Plain markdown from plain data; the profile feature wraps it.
#pragma once

#include <string>
#include <vector>

#include "analysis/findings.h"
#include "analysis/kernel_resource_report.h"
#include "profiler/kernel_summary.h"
#include "profiler/profile_data.h"

namespace warplens::server {

// `heading`: where the measurement comes from ("measured on version 3 ·
// profiled `./app` on NVIDIA H200"). `predicted`: static findings of the
// same code on the same line (possibly none).
std::string prediction_vs_measurement(const std::vector<const Finding*>& predicted, const Finding& measured,
                                      const std::string& heading);

// `predicted`: the kernel's resource report, or null when not (yet) known.
// `kernel`: the profile's record of it (launch configuration), or null.
std::string kernel_prediction_vs_measurement(const std::string& kernel_name, const KernelResourceReport* predicted,
                                             const profile::KernelSummary& summary, const profile::Kernel* kernel,
                                             const std::string& heading);

}  // namespace warplens::server
