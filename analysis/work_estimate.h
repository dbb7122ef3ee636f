// What a kernel asks of the memory system and the arithmetic units, as the
// static model counts it: global-memory bytes and floating-point operations
// per thread, for the roofline in the editor's kernel report.
//
// Every global access (the kernel's and those of the __device__ functions
// it calls, analysis/device_call_inlining.h) moves its element size; every
// floating-point operation (FlopSite) counts its flops. Each is weighted by
// the trip counts of its enclosing loops. A trip count is known when the
// loop's bound is a constant (or a launch's integer-literal argument) and
// its step is; otherwise the counts per thread are unknown, but the
// arithmetic intensity still is: it is the ratio of the two counts as the
// unknown loops grow, i.e. that of the innermost loop body with the most
// work. What the model cannot see: caches (a re-read from L1/L2 counts as
// DRAM traffic here, so the intensity is a lower bound for kernels with
// reuse), integer arithmetic, and work in functions without a body.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/kernel_model.h"

namespace warplens {

struct WorkEstimate {
  bool modelled = false;        // the kernel has global accesses to count
  double flops_per_thread = 0;  // valid when trips_known
  double bytes_per_thread = 0;  // valid when trips_known
  bool trips_known = true;      // every enclosing loop's trip count is known
  std::vector<std::string> unknown_loops;  // "line 12: `k < n`"
  double intensity = 0;         // flops per byte (the limit as unknown loops grow)
  bool fp64 = false;            // most flops are double precision
  // Per launch, when the launch's grid and block are constants and trips_known.
  std::optional<double> threads;
  std::optional<double> flops_per_launch, bytes_per_launch;
};

// For `kernel`, as launched at `launch` (nullptr: no launch; literal integer
// arguments of the launch fix loop bounds that use those parameters).
WorkEstimate estimate_work(const KernelModel& model, const Function& kernel, const LaunchSite* launch);

// The trip count of `loop` of a function, when it is known; `known` gives
// values of the function's parameters.
std::optional<std::int64_t> loop_trip_count(const Loop& loop, const std::map<std::string, std::int64_t>& known);

}  // namespace warplens
