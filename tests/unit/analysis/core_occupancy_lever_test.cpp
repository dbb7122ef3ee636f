// The lever: the exact change that gains the next block (and the one that
// reaches the warning threshold), computed with the calculator.
#include <doctest/doctest.h>

#include "analysis/gpu_catalog.h"
#include "analysis/occupancy.h"
#include "tests/support/analysis_requirements.h"

using warplens::test::needs;

using namespace warplens;

namespace {

GpuProperties gpu(const char* arch) { return *catalog_properties(arch); }

OccupancyLever lever_for(const char* arch, OccupancyInput in, double threshold = 0.5) {
  auto cur = compute_occupancy(gpu(arch), in);
  REQUIRE(cur.ok);
  auto lever = find_lever(gpu(arch), in, cur, threshold);
  REQUIRE(lever.has_value());
  return *lever;
}

}  // namespace

TEST_CASE("registers: next step, threshold step and __launch_bounds__" * needs("occupancy-calculator")) {
  // sm_90, 128 registers x 256 threads: 4096 registers per warp, 16 warps = 2 blocks (25%).
  // By hand: 88 regs -> 2816/warp -> 5 per sub-partition = 20 warps = 2 blocks;
  //          80 regs -> 2560/warp -> 6 per sub-partition = 24 warps = 3 blocks (37.5%);
  //          64 regs -> 2048/warp -> 8 per sub-partition = 32 warps = 4 blocks (50%).
  OccupancyInput in;
  in.registers = 128;
  in.block_threads = 256;
  auto l = lever_for("sm_90", in);
  CHECK(l.limiter == kLimitRegisters);
  REQUIRE(l.next_step);
  CHECK(l.next_step->value == 80);
  CHECK(l.next_step->blocks_per_sm == 3);
  REQUIRE(l.threshold_step);
  CHECK(l.threshold_step->value == 64);
  CHECK(l.threshold_step->blocks_per_sm == 4);
  REQUIRE(l.launch_bounds);
  CHECK(*l.launch_bounds == std::make_pair(256, 4));
  CHECK(l.text ==
        "registers: 128 per thread allow 2 blocks of 256 threads (25%); at ≤ 80 registers, 3 blocks "
        "(37.5%); at ≤ 64, 4 blocks (50%) — try `__launch_bounds__(256, 4)`");
}

TEST_CASE("registers: when the next step already reaches the threshold there is one step" * needs("occupancy-calculator")) {
  OccupancyInput in;
  in.registers = 72;  // 2304/warp -> 7 per SP = 28 warps: 3 blocks of 8 warps (37.5%)
  in.block_threads = 256;
  auto l = lever_for("sm_90", in);
  CHECK(l.next_step->value == 64);
  CHECK(l.next_step->blocks_per_sm == 4);
  CHECK_FALSE(l.threshold_step);
  CHECK(*l.launch_bounds == std::make_pair(256, 4));
}

TEST_CASE("an existing __launch_bounds__ keeps its max threads; min blocks is recomputed" * needs("occupancy-calculator")) {
  // __launch_bounds__(1024) but launched with 256 threads: ptxas sizes
  // registers for min_blocks x 1024 threads. One block of 1024 threads at
  // 64 registers is 32 warps, which is 4 blocks of 256: (1024, 1).
  OccupancyInput in;
  in.registers = 128;
  in.block_threads = 256;
  in.launch_bounds_max_threads = 1024;
  CHECK(launch_bounds_for(gpu("sm_90"), in, 4) == std::make_pair(1024, 1));
  // 512-thread bound: 2 blocks of 512 at 64 registers.
  in.launch_bounds_max_threads = 512;
  CHECK(launch_bounds_for(gpu("sm_90"), in, 4) == std::make_pair(512, 2));
}

TEST_CASE("shared memory: the per-block size for the next block" * needs("occupancy-calculator")) {
  // sm_90: 48 KB static + 1 KB reserved = 50176 B, 4 blocks (50%).
  // 5 blocks need <= 233472/5 = 46694 B allocated: 46592 (128 B steps) - 1024 = 45568 B.
  // 6 blocks (75%) need <= 38912 B allocated: 38912 - 1024 = 37888 B.
  OccupancyInput in;
  in.registers = 32;
  in.shared_static_bytes = 49152;
  in.block_threads = 256;
  auto l = lever_for("sm_90", in, 0.75);
  CHECK(l.limiter == kLimitSharedMemory);
  CHECK(l.next_step->value == 45568);
  CHECK(l.next_step->blocks_per_sm == 5);
  CHECK(l.threshold_step->value == 37888);
  CHECK(l.threshold_step->blocks_per_sm == 6);
  CHECK_FALSE(l.launch_bounds);
  CHECK(l.text.find("shared memory: 48 KB per block allow 4 blocks of 256 threads (50%); at ≤ 44.5 KB per "
                    "block, 5 blocks (62.5%)") == 0);
}

TEST_CASE("block size: warp slots and the per-SM block cap" * needs("occupancy-calculator")) {
  // sm_86: 1024 threads fill 32 of 48 warp slots; 384, 512 and 768 fill all 48.
  OccupancyInput in;
  in.registers = 32;
  in.block_threads = 1024;
  auto l = lever_for("sm_86", in);
  CHECK(l.limiter == kLimitWarps);
  CHECK(l.text == "block size: 1 block of 1024 threads (66.7%) fit the 48 warp slots; blocks of 384, 512 or "
                  "768 threads reach 100%");
  // sm_90: 32 one-warp blocks = 50%; 64, 128 and 256 threads reach 100%.
  in.registers = 8;
  in.block_threads = 32;
  l = lever_for("sm_90", in);
  CHECK(l.limiter == kLimitBlocks);
  CHECK(l.text == "blocks per SM: at most 32 resident blocks of 32 threads (50%); blocks of 64, 128 or 256 "
                  "threads reach 100%");
}

TEST_CASE("no lever at full occupancy, or when nothing single helps" * needs("occupancy-calculator")) {
  OccupancyInput in;
  in.registers = 32;
  in.block_threads = 256;
  auto cur = compute_occupancy(gpu("sm_90"), in);
  CHECK(cur.occupancy == doctest::Approx(1.0));
  CHECK_FALSE(find_lever(gpu("sm_90"), in, cur, 0.5));
}
