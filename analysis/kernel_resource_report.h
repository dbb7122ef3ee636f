// Everything warplens knows about one kernel's resources and occupancy, as
// plain data: the CLI's `report --format json` fields, the code lens title,
// the hover, and the input to the low-occupancy / register-spill findings.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/analysis_options.h"
#include "analysis/block_shape.h"
#include "analysis/gpu_catalog.h"
#include "analysis/kernel_model.h"
#include "analysis/occupancy.h"
#include "analysis/resource_usage.h"

namespace warplens {

// Occupancy for one launch configuration of the kernel.
struct LaunchOccupancy {
  BlockShapeCandidate block;
  std::int64_t shared_dynamic_bytes = 0;   // what was assumed (0 when not constant)
  bool dynamic_shared_unknown = false;     // the launch's smem argument is not a constant
  OccupancyResult result;
};

struct KernelResourceReport {
  // Identity.
  std::string kernel;        // Function::key
  std::string name;          // Function::name
  Range name_range;
  std::string instance;      // demangled symbol the numbers are from
  std::vector<std::string> other_instances;  // template pattern: the other instantiations

  // Resource usage (ptxas / nvlink), valid when resources_known.
  bool resources_known = false;
  std::string resources_missing;  // why not, for hovers and the lens
  int registers = 0;
  std::int64_t shared_static_bytes = 0;
  std::int64_t stack_bytes = 0;
  std::int64_t spill_store_bytes = 0;
  std::int64_t spill_load_bytes = 0;
  int barriers = 0;
  std::optional<int> register_limit;  // -maxrregcount cap reported by ptxas

  // The launch configuration reported: the worst of `launches`.
  BlockShape block_size;
  BlockShapeSource block_source = BlockShapeSource::BuiltinDefault;
  std::string block_source_detail;       // BlockShapeCandidate::description
  std::int64_t shared_dynamic_bytes = 0;
  std::vector<LaunchOccupancy> launches; // one per block-shape candidate
  std::vector<std::string> unresolved_launches;  // "line 42: `dim3(n)`"

  // Occupancy, valid when occupancy_known.
  bool occupancy_known = false;
  std::string occupancy_missing;
  double occupancy = 0;      // 0..1, theoretical
  int blocks_per_sm = 0;
  int active_warps = 0;
  int max_warps = 0;
  // What keeps occupancy below 100%: "registers", "shared memory", "warps",
  // ... ("none" at 100%, where every resource "limits" only in the sense
  // that nothing more fits, and a label would read like a problem).
  std::string limiter;       // primary limiter
  std::string limiters;      // all of them: "registers + warps"
  std::string cannot_launch; // non-empty when no block fits
  // When it cannot launch: what would make it launch.
  struct LaunchRemedy {
    int largest_block = 0;       // the largest block (threads, multiple of the warp size) that fits; 0: none
    int registers_to_fit = 0;    // registers per thread at which the current block fits (what
                                 // __launch_bounds__(threads) makes ptxas target); 0: registers are not the problem
    bool launch_bounds_help = false;  // __launch_bounds__(block threads) lets this block launch
  };
  LaunchRemedy remedy;
  std::string arch;          // the architecture occupancy is computed for
  std::string gpu;           // GpuProperties::name
  std::string gpu_source;    // "table" / "device 0 (driver): NVIDIA H200"
  std::vector<OccupancyRow> table;       // block sizes 64..1024 and the launch sizes (the hover)
  std::vector<OccupancyRow> curve;       // every multiple of the warp size up to the block limit (the report view)
  std::optional<OccupancyLever> lever;

  std::string code_lens;       // "64 regs · 12 KB smem · 50% occupancy (registers) @ 256 threads"
  std::string hover_markdown;  // resources (one table), block, occupancy, lever, occupancy by block size
};

// The GPU occupancy is computed for.
struct GpuSelection {
  std::optional<GpuProperties> gpu;
  std::string arch;   // what nvcc should compile for ("sm_90"); the setting when unknown
  std::string note;   // why properties are missing or where they came from, when notable
};

// `arch_setting` is AnalysisOptions::arch: "sm_XX" or "native" (the local
// GPU). A local GPU of the requested compute capability supplies its real
// properties (probe_gpu); otherwise the built-in table does.
GpuSelection select_gpu(const std::string& arch_setting, bool probe_local_gpu = true);

// Builds the report for `kernel` (a FunctionKind::Kernel of `model`).
KernelResourceReport build_kernel_report(const KernelModel& model, const Function& kernel,
                                         const ResourceUsageResult& resources, const GpuSelection& gpu,
                                         const AnalysisOptions& options);

}  // namespace warplens
