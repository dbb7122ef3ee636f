// Theoretical occupancy: how many blocks of a kernel fit on one SM, what
// limits them, and what change would let one more fit.
//
// The numbers come from NVIDIA's own calculator, cuda_occupancy.h (host-only,
// header-only, shipped with the CUDA toolkit), fed with ptxas' resource usage
// and a GpuProperties (gpu_catalog.h or gpu_probe.h). The header is used when
// it is found at build time (CUDA toolkit include directory); otherwise
// occupancy_calculator_available() is false and compute_occupancy() says so.
// Nothing is vendored: results always match the toolkit's own rules.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/gpu_catalog.h"

namespace warplens {

// Bit values are cuda_occupancy.h's cudaOccLimitingFactor.
enum OccupancyLimiter : unsigned {
  kLimitWarps = 0x01,         // warps per SM (block size)
  kLimitRegisters = 0x02,
  kLimitSharedMemory = 0x04,
  kLimitBlocks = 0x08,        // resident blocks per SM
  kLimitBarriers = 0x10,      // named barriers per SM
};

// "warps", "registers", "shared memory", "blocks per SM", "barriers".
const char* limiter_name(unsigned bit);
// The most actionable of several simultaneous limiters: registers, shared
// memory, barriers, blocks, warps (in that order). 0 when none.
unsigned primary_limiter(unsigned limiters);
// "registers", "warps + registers": primary first.
std::string limiter_list(unsigned limiters);

struct OccupancyInput {
  int registers = 0;                      // per thread, ptxas "Used N registers"
  std::int64_t shared_static_bytes = 0;   // ptxas "N bytes smem"
  std::int64_t shared_dynamic_bytes = 0;  // the launch's third <<<>>> argument
  int barriers = 0;                       // ptxas "used N barriers"
  int block_threads = 256;
  int launch_bounds_max_threads = 0;      // __launch_bounds__ first argument; 0 = none
};

struct OccupancyResult {
  bool ok = false;            // false: calculator unavailable or invalid input (see error)
  std::string error;
  int blocks_per_sm = 0;
  int warps_per_block = 0;
  int active_warps = 0;       // blocks_per_sm * warps_per_block
  int max_warps = 0;          // per SM
  double occupancy = 0;       // active_warps / max_warps
  unsigned limiters = 0;      // OccupancyLimiter bits
  // Blocks per SM each resource alone would allow (INT_MAX = no limit).
  int limit_registers = 0, limit_shared = 0, limit_warps = 0, limit_blocks = 0, limit_barriers = 0;
  int allocated_registers_per_block = 0;
  std::int64_t allocated_shared_per_block = 0;  // incl. the driver's reservation, rounded
  std::string cannot_launch;  // non-empty when no block fits at all, and why
};

bool occupancy_calculator_available();

OccupancyResult compute_occupancy(const GpuProperties& gpu, const OccupancyInput& input);

// Block sizes for the per-kernel table: the powers of two 64 ... 1024 (the
// sizes people launch with; multiples of 32 would make a 31-row hover),
// plus any `extra` sizes (the kernel's actual launch sizes), sorted.
std::vector<int> table_block_sizes(const std::vector<int>& extra = {});

struct OccupancyRow {
  int block_threads = 0;
  OccupancyResult result;
  bool exceeds_launch_bounds = false;  // larger than __launch_bounds__ allows
};
std::vector<OccupancyRow> occupancy_table(const GpuProperties& gpu, OccupancyInput input,
                                          const std::vector<int>& block_sizes);

// A change that lets more blocks fit, computed with the calculator.
struct OccupancyStep {
  std::int64_t value = 0;   // registers per thread, or shared bytes per block, or threads per block
  int blocks_per_sm = 0;
  double occupancy = 0;
};

struct OccupancyLever {
  unsigned limiter = 0;                         // the resource the lever acts on
  std::optional<OccupancyStep> next_step;       // the smallest change that gains a block
  std::optional<OccupancyStep> threshold_step;  // the smallest change reaching the threshold,
                                                // when it differs from next_step
  // Registers: the __launch_bounds__(max_threads, min_blocks) that asks ptxas
  // for the suggested step (threshold_step when reachable, else next_step).
  std::optional<std::pair<int, int>> launch_bounds;
  std::vector<OccupancyStep> better_block_sizes;  // warps/blocks limiters: sizes that do better
  std::string text;  // "at ≤ 64 registers, 4 blocks (50%) — try `__launch_bounds__(256, 4)`"
};

// nullopt when occupancy is already 100% or no single-resource change helps.
std::optional<OccupancyLever> find_lever(const GpuProperties& gpu, const OccupancyInput& input,
                                         const OccupancyResult& current, double threshold);

// The smallest __launch_bounds__(max_threads, min_blocks) for which the
// calculator's register cap lets `target_blocks` blocks of `input.block_threads`
// fit. max_threads is the existing bound when there is one (changing it would
// change which launches are legal), else the block size.
std::optional<std::pair<int, int>> launch_bounds_for(const GpuProperties& gpu,
                                                     const OccupancyInput& input, int target_blocks);

// "50%", "37.5%", "12.5%".
std::string format_percent(double fraction);
// "512 B", "4 KB", "4.1 KB", "48 KB".
std::string format_bytes(std::int64_t bytes);

}  // namespace warplens
