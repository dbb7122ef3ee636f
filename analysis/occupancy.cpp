#include "analysis/occupancy.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>

#if __has_include(<cuda_occupancy.h>)
#include <cuda_occupancy.h>
#define WARPLENS_HAVE_OCCUPANCY_CALCULATOR 1
#endif

namespace warplens {

const char* limiter_name(unsigned bit) {
  switch (bit) {
    case kLimitWarps: return "warps";
    case kLimitRegisters: return "registers";
    case kLimitSharedMemory: return "shared memory";
    case kLimitBlocks: return "blocks per SM";
    case kLimitBarriers: return "barriers";
  }
  return "none";
}

namespace {
constexpr unsigned kActionableOrder[] = {kLimitRegisters, kLimitSharedMemory, kLimitBarriers,
                                         kLimitBlocks, kLimitWarps};
}

unsigned primary_limiter(unsigned limiters) {
  for (unsigned bit : kActionableOrder)
    if (limiters & bit) return bit;
  return 0;
}

std::string limiter_list(unsigned limiters) {
  std::string s;
  for (unsigned bit : kActionableOrder)
    if (limiters & bit) s += (s.empty() ? "" : " + ") + std::string(limiter_name(bit));
  return s.empty() ? "none" : s;
}

bool occupancy_calculator_available() {
#ifdef WARPLENS_HAVE_OCCUPANCY_CALCULATOR
  return true;
#else
  return false;
#endif
}

OccupancyResult compute_occupancy(const GpuProperties& gpu, const OccupancyInput& in) {
  OccupancyResult r;
  r.max_warps = gpu.max_warps_per_sm();
  r.warps_per_block = gpu.warp_size > 0 ? (in.block_threads + gpu.warp_size - 1) / gpu.warp_size : 0;
  if (in.block_threads <= 0) {
    r.error = "block size must be positive";
    return r;
  }
  if (std::string why = unusable_gpu_properties(gpu); !why.empty()) {
    r.error = "the device's limits are unusable (" + why + ")";
    return r;
  }
#ifndef WARPLENS_HAVE_OCCUPANCY_CALCULATOR
  r.error = "the CUDA occupancy calculator (cuda_occupancy.h) was not found when warplens was built";
  return r;
#else
  cudaOccDeviceProp prop;
  prop.computeMajor = gpu.cc.major;
  prop.computeMinor = gpu.cc.minor;
  prop.maxThreadsPerBlock = gpu.max_threads_per_block;
  prop.maxThreadsPerMultiprocessor = gpu.max_threads_per_sm;
  prop.regsPerBlock = gpu.regs_per_block;
  prop.regsPerMultiprocessor = gpu.regs_per_sm;
  prop.warpSize = gpu.warp_size;
  prop.sharedMemPerBlock = static_cast<size_t>(gpu.shared_per_block);
  prop.sharedMemPerMultiprocessor = static_cast<size_t>(gpu.shared_per_sm);
  prop.numSms = gpu.sm_count > 0 ? gpu.sm_count : 1;
  prop.sharedMemPerBlockOptin = static_cast<size_t>(gpu.shared_per_block_optin);
  prop.reservedSharedMemPerBlock = static_cast<size_t>(gpu.reserved_shared_per_block);

  cudaOccFuncAttributes attr;
  attr.maxThreadsPerBlock =
      in.launch_bounds_max_threads > 0 ? in.launch_bounds_max_threads : gpu.max_threads_per_block;
  attr.numRegs = in.registers;
  attr.sharedSizeBytes = static_cast<size_t>(std::max<std::int64_t>(0, in.shared_static_bytes));
  attr.numBlockBarriers = in.barriers;
  // Dynamic shared memory beyond the default per-block limit needs the
  // kernel to opt in (cudaFuncAttributeMaxDynamicSharedMemorySize); a launch
  // that asks for it implies the program does.
  if (in.shared_static_bytes + in.shared_dynamic_bytes > gpu.shared_per_block) {
    attr.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
    attr.maxDynamicSharedSizeBytes = static_cast<size_t>(std::max<std::int64_t>(0, in.shared_dynamic_bytes));
  }
  cudaOccDeviceState state;
  cudaOccResult res;
  cudaOccError err = cudaOccMaxActiveBlocksPerMultiprocessor(
      &res, &prop, &attr, &state, in.block_threads,
      static_cast<size_t>(std::max<std::int64_t>(0, in.shared_dynamic_bytes)));
  if (err != CUDA_OCC_SUCCESS) {
    r.error = err == CUDA_OCC_ERROR_UNKNOWN_DEVICE
                  ? "the occupancy calculator does not know compute capability " +
                        std::to_string(gpu.cc.major) + "." + std::to_string(gpu.cc.minor)
                  : "the occupancy calculator rejected the input (registers " +
                        std::to_string(in.registers) + ", block " + std::to_string(in.block_threads) + ")";
    return r;
  }
  r.ok = true;
  r.blocks_per_sm = res.activeBlocksPerMultiprocessor;
  r.limit_registers = res.blockLimitRegs;
  r.limit_shared = res.blockLimitSharedMem;
  r.limit_warps = res.blockLimitWarps;
  r.limit_blocks = res.blockLimitBlocks;
  r.limit_barriers = res.blockLimitBarriers;
  r.allocated_registers_per_block = res.allocatedRegistersPerBlock;
  r.allocated_shared_per_block = static_cast<std::int64_t>(res.allocatedSharedMemPerBlock);
  // The limiters are the resources whose own limit equals the result. (The
  // calculator's limitingFactors keeps the bits from before it applies the
  // barrier limit, so a barrier-bound kernel would also show "warps".)
  const std::pair<int, unsigned> limits[] = {
      {r.limit_warps, kLimitWarps},   {r.limit_registers, kLimitRegisters},
      {r.limit_shared, kLimitSharedMemory}, {r.limit_blocks, kLimitBlocks},
      {r.limit_barriers, kLimitBarriers}};
  for (auto [limit, bit] : limits)
    if (limit == r.blocks_per_sm) r.limiters |= bit;
  if (in.launch_bounds_max_threads > 0 && in.block_threads > in.launch_bounds_max_threads) {
    r.blocks_per_sm = 0;
    r.limiters = 0;
    r.cannot_launch = std::to_string(in.block_threads) + " threads exceed __launch_bounds__(" +
                      std::to_string(in.launch_bounds_max_threads) + ")";
  } else if (r.blocks_per_sm == 0) {
    if (in.block_threads > gpu.max_threads_per_block)
      r.cannot_launch = std::to_string(in.block_threads) + " threads exceed the " +
                        std::to_string(gpu.max_threads_per_block) + "-thread block limit";
    else if (r.limit_registers == 0)
      r.cannot_launch = std::to_string(in.registers) + " registers × " + std::to_string(in.block_threads) +
                        " threads exceed the register file available to one block";
    else if (r.limit_shared == 0)
      r.cannot_launch = format_bytes(in.shared_static_bytes + in.shared_dynamic_bytes) +
                        " of shared memory per block exceed the " +
                        format_bytes(gpu.shared_per_block_optin) + " limit";
    else
      r.cannot_launch = "no block fits on an SM";
  }
  r.active_warps = r.blocks_per_sm * r.warps_per_block;
  r.occupancy = r.max_warps > 0 ? static_cast<double>(r.active_warps) / r.max_warps : 0;
  return r;
#endif
}

std::vector<int> table_block_sizes(const std::vector<int>& extra) {
  std::vector<int> sizes = {64, 128, 256, 512, 1024};
  for (int e : extra)
    if (e > 0 && std::find(sizes.begin(), sizes.end(), e) == sizes.end()) sizes.push_back(e);
  std::sort(sizes.begin(), sizes.end());
  return sizes;
}

std::vector<OccupancyRow> occupancy_table(const GpuProperties& gpu, OccupancyInput input,
                                          const std::vector<int>& block_sizes) {
  std::vector<OccupancyRow> rows;
  for (int b : block_sizes) {
    input.block_threads = b;
    OccupancyRow row;
    row.block_threads = b;
    row.result = compute_occupancy(gpu, input);
    row.exceeds_launch_bounds = input.launch_bounds_max_threads > 0 && b > input.launch_bounds_max_threads;
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string format_percent(double f) {
  double pct = f * 100.0;
  char buf[32];
  if (std::fabs(pct - std::round(pct)) < 0.05) std::snprintf(buf, sizeof buf, "%.0f%%", pct);
  else std::snprintf(buf, sizeof buf, "%.1f%%", pct);
  return buf;
}

std::string format_bytes(std::int64_t bytes) {
  if (bytes < 1024) return std::to_string(bytes) + " B";
  char buf[32];
  double kb = static_cast<double>(bytes) / 1024.0;
  if (bytes % 1024 == 0) std::snprintf(buf, sizeof buf, "%lld KB", static_cast<long long>(bytes / 1024));
  else std::snprintf(buf, sizeof buf, "%.1f KB", kb);
  return buf;
}

namespace {

OccupancyStep step_of(std::int64_t value, const OccupancyResult& r) {
  return {value, r.blocks_per_sm, r.occupancy};
}

// Walks one resource down from its current value; returns the first value
// that gains a block and the first that reaches the threshold.
template <typename Apply>
void walk_down(const GpuProperties& gpu, const OccupancyInput& input, const OccupancyResult& current,
               double threshold, std::int64_t from, std::int64_t step, Apply apply,
               OccupancyLever& lever) {
  for (std::int64_t v = from - step; v >= 0; v -= step) {
    OccupancyInput trial = input;
    apply(trial, v);
    OccupancyResult r = compute_occupancy(gpu, trial);
    if (!r.ok || r.blocks_per_sm <= current.blocks_per_sm) continue;
    if (!lever.next_step) lever.next_step = step_of(v, r);
    if (r.occupancy + 1e-9 >= threshold) {
      if (r.blocks_per_sm != lever.next_step->blocks_per_sm) lever.threshold_step = step_of(v, r);
      return;
    }
  }
}

std::string blocks_phrase(int blocks, int threads, double occ) {
  return std::to_string(blocks) + (blocks == 1 ? " block" : " blocks") + " of " + std::to_string(threads) +
         " threads (" + format_percent(occ) + ")";
}

}  // namespace

std::optional<std::pair<int, int>> launch_bounds_for(const GpuProperties& gpu, const OccupancyInput& input,
                                                     int target_blocks) {
  int max_threads = input.launch_bounds_max_threads > 0 ? input.launch_bounds_max_threads : input.block_threads;
  if (max_threads == input.block_threads) return std::make_pair(max_threads, target_blocks);
  // With a different bound, ptxas sizes registers for `min_blocks` blocks of
  // `max_threads`: find the smallest min_blocks whose register cap is enough.
  for (int mb = 1; mb <= gpu.max_blocks_per_sm; ++mb) {
    int cap = -1;
    for (int r = gpu.max_regs_per_thread; r >= 1; --r) {
      OccupancyInput t = input;
      t.block_threads = max_threads;
      t.registers = r;
      if (compute_occupancy(gpu, t).blocks_per_sm >= mb) {
        cap = r;
        break;
      }
    }
    if (cap < 0) break;
    OccupancyInput t = input;
    t.registers = cap;
    if (compute_occupancy(gpu, t).blocks_per_sm >= target_blocks) return std::make_pair(max_threads, mb);
  }
  return std::nullopt;
}

std::optional<OccupancyLever> find_lever(const GpuProperties& gpu, const OccupancyInput& input,
                                         const OccupancyResult& current, double threshold) {
  if (!current.ok || current.occupancy >= 1.0 - 1e-9) return std::nullopt;
  unsigned limiter = primary_limiter(current.limiters);
  OccupancyLever lever;
  lever.limiter = limiter;
  const int threads = input.block_threads;
  std::string now;
  if (limiter == kLimitRegisters) {
    walk_down(gpu, input, current, threshold, input.registers, 1,
              [](OccupancyInput& t, std::int64_t v) { t.registers = static_cast<int>(v); }, lever);
    if (!lever.next_step) return std::nullopt;
    const OccupancyStep& target = lever.threshold_step ? *lever.threshold_step : *lever.next_step;
    lever.launch_bounds = launch_bounds_for(gpu, input, target.blocks_per_sm);
    std::string text = "registers: " + std::to_string(input.registers) + " per thread allow " +
                       blocks_phrase(current.blocks_per_sm, threads, current.occupancy);
    text += "; at ≤ " + std::to_string(lever.next_step->value) + " registers, " +
            std::to_string(lever.next_step->blocks_per_sm) + " blocks (" +
            format_percent(lever.next_step->occupancy) + ")";
    if (lever.threshold_step)
      text += "; at ≤ " + std::to_string(lever.threshold_step->value) + ", " +
              std::to_string(lever.threshold_step->blocks_per_sm) + " blocks (" +
              format_percent(lever.threshold_step->occupancy) + ")";
    if (lever.launch_bounds)
      text += " — try `__launch_bounds__(" + std::to_string(lever.launch_bounds->first) + ", " +
              std::to_string(lever.launch_bounds->second) + ")`";
    lever.text = std::move(text);
    return lever;
  }
  if (limiter == kLimitSharedMemory) {
    // Walk the per-block total down in the allocation granularity; the
    // dynamic part shrinks first (that is what a launch can change).
    const std::int64_t granularity = gpu.cc.major >= 8 ? 128 : 256;
    const std::int64_t total = input.shared_static_bytes + input.shared_dynamic_bytes;
    walk_down(gpu, input, current, threshold, total, granularity,
              [&](OccupancyInput& t, std::int64_t v) {
                std::int64_t dyn = std::max<std::int64_t>(0, v - input.shared_static_bytes);
                t.shared_dynamic_bytes = dyn;
                t.shared_static_bytes = v - dyn;
              },
              lever);
    if (!lever.next_step) return std::nullopt;
    std::string text = "shared memory: " + format_bytes(total) + " per block allow " +
                       blocks_phrase(current.blocks_per_sm, threads, current.occupancy) + "; at ≤ " +
                       format_bytes(lever.next_step->value) + " per block, " +
                       std::to_string(lever.next_step->blocks_per_sm) + " blocks (" +
                       format_percent(lever.next_step->occupancy) + ")";
    if (lever.threshold_step)
      text += "; at ≤ " + format_bytes(lever.threshold_step->value) + ", " +
              std::to_string(lever.threshold_step->blocks_per_sm) + " blocks (" +
              format_percent(lever.threshold_step->occupancy) + ")";
    if (gpu.reserved_shared_per_block > 0)
      text += " (the driver adds " + format_bytes(gpu.reserved_shared_per_block) + " per block)";
    lever.text = std::move(text);
    return lever;
  }
  if (limiter == kLimitWarps || limiter == kLimitBlocks) {
    // The block size itself: list sizes (multiples of 32) that do better.
    for (int b = 32; b <= gpu.max_threads_per_block; b += 32) {
      if (b == threads) continue;
      if (input.launch_bounds_max_threads > 0 && b > input.launch_bounds_max_threads) break;
      OccupancyInput t = input;
      t.block_threads = b;
      OccupancyResult r = compute_occupancy(gpu, t);
      if (r.ok && r.occupancy > current.occupancy + 1e-9) lever.better_block_sizes.push_back(step_of(b, r));
    }
    if (lever.better_block_sizes.empty()) return std::nullopt;
    // Mention the best occupancy reachable, with the sizes closest to the current one.
    double best = 0;
    for (const auto& s : lever.better_block_sizes) best = std::max(best, s.occupancy);
    std::vector<OccupancyStep> best_sizes;
    for (const auto& s : lever.better_block_sizes)
      if (s.occupancy >= best - 1e-9) best_sizes.push_back(s);
    std::sort(best_sizes.begin(), best_sizes.end(), [&](const OccupancyStep& a, const OccupancyStep& b) {
      return std::llabs(a.value - threads) < std::llabs(b.value - threads);
    });
    if (best_sizes.size() > 3) best_sizes.resize(3);
    std::sort(best_sizes.begin(), best_sizes.end(),
              [](const OccupancyStep& a, const OccupancyStep& b) { return a.value < b.value; });
    std::string sizes;
    for (std::size_t i = 0; i < best_sizes.size(); ++i)
      sizes += (i ? (i + 1 == best_sizes.size() ? " or " : ", ") : "") + std::to_string(best_sizes[i].value);
    lever.next_step = best_sizes.front();
    std::string why = limiter == kLimitBlocks
                          ? "blocks per SM: at most " + std::to_string(gpu.max_blocks_per_sm) +
                                " resident blocks of " + std::to_string(threads) + " threads (" +
                                format_percent(current.occupancy) + ")"
                          : "block size: " + blocks_phrase(current.blocks_per_sm, threads, current.occupancy) +
                                " fit the " + std::to_string(gpu.max_warps_per_sm()) + " warp slots";
    lever.text = why + "; blocks of " + sizes + " threads reach " + format_percent(best);
    return lever;
  }
  if (limiter == kLimitBarriers) {
    lever.text = "barriers: " + std::to_string(input.barriers) + " named barriers per block allow " +
                 blocks_phrase(current.blocks_per_sm, threads, current.occupancy) +
                 "; use fewer named barriers (bar.sync ids) per block";
    return lever;
  }
  return std::nullopt;
}

}  // namespace warplens
