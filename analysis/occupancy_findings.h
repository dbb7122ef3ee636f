// Occupancy and resource-usage findings for a translation unit, and the
// pipeline that produces them: choose the GPU, compile the device code with
// nvcc (resource_usage.h), build one KernelResourceReport per kernel, and
// turn them into findings.
//
// Codes (docs/diagnostics/<code>.md):
//   cannot-launch   error: no block of a launch in this file fits on an SM
//                   (too many registers × threads, over __launch_bounds__ or
//                   the block limit, too much shared memory), on the kernel
//                   and on each such launch, with the remedy and quick fixes
//                   (__launch_bounds__ with the block size; the largest block
//                   that fits, at a launch with a literal block size);
//                   information when the block comes from a setting or guess.
//   low-occupancy   warning: theoretical occupancy below
//                   AnalysisOptions::occupancy_threshold, with the limiter,
//                   the lever and a __launch_bounds__ quick fix when registers
//                   limit; information instead when the block size is our
//                   built-in guess and another size would pass.
//   register-spill  warning: ptxas spilled registers to local memory.
//   resource-usage  nvcc failed (error for ptxas/nvlink errors, which Clang
//                   cannot see; warning for front-end errors, which Clang
//                   also reports), or information: nvcc missing, architecture
//                   substituted, no device properties, calculator missing.
#pragma once

#include <stop_token>
#include <string>
#include <vector>

#include "analysis/analysis_options.h"
#include "analysis/findings.h"
#include "analysis/kernel_model.h"
#include "analysis/kernel_resource_report.h"
#include "analysis/resource_usage.h"

namespace warplens {

struct OccupancyAnalysis {
  GpuSelection gpu;
  ResourceUsageResult resources;
  std::vector<KernelResourceReport> kernels;  // one per FunctionKind::Kernel, in model order
  std::vector<Finding> findings;
  bool cancelled = false;
};

// From resource usage already computed (tests, the CLI with a recorded run).
OccupancyAnalysis analyze_occupancy(const std::string& file, const KernelModel& model,
                                    const ResourceUsageResult& resources, const GpuSelection& gpu,
                                    const AnalysisOptions& options);

struct OccupancyRequest {
  SourceFile file;
  // The file's compile command (nvcc or clang argv) when there is one;
  // AnalysisOptions::extra_args are appended. Filtered for nvcc.
  std::vector<std::string> compile_args;
  std::string working_directory;  // the compile command's directory
  bool probe_local_gpu = true;    // read a present GPU's real limits
  ResourceCache* cache = nullptr; // nullptr = default_resource_cache()
};

// The whole pipeline. Synchronous and slow on a cache miss (nvcc, ~0.4-1.5 s):
// run it on a worker thread after the parse; `stop` kills nvcc.
OccupancyAnalysis run_occupancy_analysis(const OccupancyRequest& request, const KernelModel& model,
                                         const AnalysisOptions& options, std::stop_token stop = {});

// The findings for one kernel's report (cannot-launch, low-occupancy, register-spill).
std::vector<Finding> kernel_findings(const KernelResourceReport& report, const Function& kernel,
                                     const KernelModel& model, const AnalysisOptions& options,
                                     const std::string& file);

// File-level resource-usage findings (build errors, missing nvcc, notes) and
// register-spill findings for non-inlined __device__ functions.
std::vector<Finding> resource_usage_findings(const ResourceUsageResult& resources, const GpuSelection& gpu,
                                             const KernelModel& model, const std::string& file);

}  // namespace warplens
