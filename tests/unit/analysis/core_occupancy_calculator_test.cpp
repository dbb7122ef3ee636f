// Theoretical occupancy against hand-worked examples.
//
// How each expectation was worked out by hand (CUDA's rules, as in
// cuda_occupancy.h and the CUDA C Programming Guide's occupancy section):
//   registers: a warp gets regs × 32 rounded up to 256; each of the 4 SM
//     sub-partitions holds 16384 registers, so warps/SM = 4 × ⌊16384 / per-warp⌋,
//     blocks = ⌊warps/SM ÷ warps per block⌋.
//   shared memory: per block = static + dynamic + the driver's reservation
//     (1 KB on CC ≥ 8.0), rounded up to 128 B (CC ≥ 8) or 256 B (CC 7.x);
//     blocks = ⌊shared per SM ÷ that⌋.
//   warps: ⌊max warps per SM ÷ warps per block⌋; blocks: the per-SM cap.
//   barriers (CC ≥ 9.0 only): (2 × block cap, 1 × on 12.x) ÷ barriers per block.
// Occupancy = blocks × warps per block ÷ max warps per SM.
#include <doctest/doctest.h>

#include <climits>

#include "analysis/gpu_catalog.h"
#include "analysis/occupancy.h"
#include "tests/support/analysis_requirements.h"

using warplens::test::needs;

using namespace warplens;

namespace {

GpuProperties gpu(const char* arch) {
  auto p = catalog_properties(arch);
  REQUIRE_MESSAGE(p.has_value(), "no catalog entry for " << arch);
  return *p;
}

struct Case {
  const char* arch;
  int regs;
  std::int64_t smem_static, smem_dynamic;
  int barriers;
  int threads;
  int expect_blocks;
  double expect_occupancy;
  unsigned expect_limiters;
  const char* why;
};

void check(const Case& c) {
  std::string arch = c.arch, why = c.why;
  CAPTURE(arch);
  CAPTURE(why);
  OccupancyInput in;
  in.registers = c.regs;
  in.shared_static_bytes = c.smem_static;
  in.shared_dynamic_bytes = c.smem_dynamic;
  in.barriers = c.barriers;
  in.block_threads = c.threads;
  OccupancyResult r = compute_occupancy(gpu(c.arch), in);
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.blocks_per_sm == c.expect_blocks);
  CHECK(r.occupancy == doctest::Approx(c.expect_occupancy).epsilon(1e-6));
  CHECK(r.limiters == c.expect_limiters);
}

}  // namespace

TEST_CASE("without cuda_occupancy.h the calculator says it cannot compute" * needs("no-occupancy-calculator")) {
  CHECK_FALSE(compute_occupancy(gpu("sm_90"), {}).ok);
}

TEST_CASE("sm_90: the measured table in the reference (clang-cuda-frontend.md §9)" * needs("occupancy-calculator")) {
  const Case cases[] = {
      {"sm_90", 14, 4096, 0, 1, 1024, 2, 1.0, kLimitWarps, "smem would allow 45 blocks of 5120 B"},
      {"sm_90", 8, 0, 0, 0, 32, 32, 0.5, kLimitBlocks, "32 one-warp blocks"},
      {"sm_90", 32, 0, 0, 0, 256, 8, 1.0, kLimitWarps | kLimitRegisters, "1024 regs/warp: 64 warps"},
      {"sm_90", 64, 0, 0, 0, 128, 8, 0.5, kLimitRegisters, "2048 regs/warp: 32 warps = 8 blocks of 4"},
      {"sm_90", 255, 0, 0, 0, 256, 1, 0.125, kLimitRegisters, "8160 regs/warp -> 8192: 8 warps"},
      {"sm_90", 32, 49152, 0, 0, 256, 4, 0.5, kLimitSharedMemory, "50176 B/block: 233472/50176 = 4"},
      {"sm_90", 32, 0, 102400, 0, 256, 2, 0.25, kLimitSharedMemory, "opt-in 103424 B/block: 2"},
      {"sm_90", 16, 0, 0, 0, 64, 32, 1.0, kLimitWarps | kLimitBlocks, "2 warps x 32 blocks"},
  };
  for (const auto& c : cases) check(c);
}

TEST_CASE("other architectures, worked by hand" * needs("occupancy-calculator")) {
  const Case cases[] = {
      // sm_70: 64 warps, 32 blocks, 96 KB, 256 B smem granularity, no reservation.
      {"sm_70", 96, 0, 0, 0, 256, 2, 0.25, kLimitRegisters, "3072 regs/warp: 5 per SP = 20 warps"},
      {"sm_70", 33, 0, 0, 0, 512, 3, 0.75, kLimitRegisters, "33 regs round to 1280/warp: 48 warps"},
      // sm_75: 32 warps, 16 blocks, 64 KB.
      {"sm_75", 64, 0, 0, 0, 256, 4, 1.0, kLimitWarps | kLimitRegisters, "2048 regs/warp: 32 warps"},
      {"sm_75", 40, 16384, 0, 1, 128, 4, 0.5, kLimitSharedMemory, "64 KB / 16 KB"},
      // sm_80: 164 KB, 1 KB reserved per block.
      {"sm_80", 32, 40000, 0, 1, 128, 4, 0.25, kLimitSharedMemory, "41024 -> 41088 B: 167936/41088 = 4"},
      // sm_86: 48 warps, 16 blocks, and one barrier slot per block slot.
      {"sm_86", 32, 0, 0, 0, 1024, 1, 32.0 / 48, kLimitWarps, "48/32 = 1 block"},
      {"sm_86", 16, 0, 0, 0, 128, 12, 1.0, kLimitWarps, "48/4 = 12 blocks"},
      {"sm_86", 16, 0, 0, 0, 64, 16, 32.0 / 48, kLimitBlocks, "16-block cap"},
      {"sm_86", 16, 0, 0, 2, 64, 16, 32.0 / 48, kLimitBlocks, "no barrier limit before CC 9.0"},
      // sm_89: 24-block cap.
      {"sm_89", 16, 0, 0, 0, 32, 24, 0.5, kLimitBlocks, "24 one-warp blocks of 48"},
      // sm_100: as sm_90.
      {"sm_100", 72, 0, 0, 0, 192, 4, 0.375, kLimitRegisters, "2304 regs/warp: 28 warps / 6"},
      // sm_120: 48 warps, 24 blocks, 100 KB.
      {"sm_120", 32, 0, 0, 0, 256, 6, 1.0, kLimitWarps, "48/8 = 6 blocks"},
      {"sm_120", 64, 0, 0, 0, 1024, 1, 32.0 / 48, kLimitWarps | kLimitRegisters, "32 warps of regs"},
      {"sm_120", 32, 24576, 0, 1, 128, 4, 16.0 / 48, kLimitSharedMemory, "25600 B: 102400/25600 = 4"},
      {"sm_120", 16, 0, 0, 2, 64, 12, 0.5, kLimitBarriers, "24 barrier slots / 2 per block"},
      {"sm_90", 168, 0, 0, 16, 128, 3, 0.1875, kLimitRegisters, "5376/warp: 3 per SP = 12 warps"},
      {"sm_90", 32, 0, 0, 16, 64, 4, 0.125, kLimitBarriers, "64 barrier slots / 16 per block"},
  };
  for (const auto& c : cases) check(c);
}

TEST_CASE("blocks that cannot launch say why" * needs("occupancy-calculator")) {
  OccupancyInput in;
  in.registers = 32;
  in.block_threads = 2048;
  auto r = compute_occupancy(gpu("sm_90"), in);
  CHECK(r.blocks_per_sm == 0);
  CHECK(r.cannot_launch == "2048 threads exceed the 1024-thread block limit");

  in.block_threads = 1024;
  in.registers = 128;  // 128 x 1024 = 131072 registers > 65536 per block
  r = compute_occupancy(gpu("sm_90"), in);
  CHECK(r.blocks_per_sm == 0);
  CHECK(r.cannot_launch.find("exceed the register file") != std::string::npos);

  in.registers = 32;
  in.block_threads = 512;
  in.launch_bounds_max_threads = 256;
  r = compute_occupancy(gpu("sm_90"), in);
  CHECK(r.blocks_per_sm == 0);
  CHECK(r.cannot_launch == "512 threads exceed __launch_bounds__(256)");
}

TEST_CASE("the block-size table" * needs("occupancy-calculator")) {
  CHECK(table_block_sizes() == std::vector<int>{64, 128, 256, 512, 1024});
  CHECK(table_block_sizes({192, 256}) == std::vector<int>{64, 128, 192, 256, 512, 1024});
  OccupancyInput in;
  in.registers = 64;
  in.launch_bounds_max_threads = 512;
  auto rows = occupancy_table(gpu("sm_90"), in, table_block_sizes());
  REQUIRE(rows.size() == 5);
  // 64 regs: 32 warps per SM whatever the block size, so 50% until 1024.
  CHECK(rows[0].result.occupancy == doctest::Approx(0.5));
  CHECK(rows[3].result.occupancy == doctest::Approx(0.5));
  CHECK_FALSE(rows[3].exceeds_launch_bounds);
  CHECK(rows[4].exceeds_launch_bounds);
  CHECK(rows[4].result.blocks_per_sm == 0);
}

TEST_CASE("catalog: architectures, aliases, and the calculator's own block caps" * needs("occupancy-calculator")) {
  for (std::string a : {"sm_70", "sm_75", "sm_80", "sm_86", "sm_87", "sm_89", "sm_90", "sm_100", "sm_120"})
    CHECK_MESSAGE(catalog_properties(a).has_value(), a);
  CHECK(catalog_properties("sm_90a")->arch == "sm_90");
  CHECK(catalog_properties("compute_80")->cc == ComputeCapability{8, 0});
  CHECK(catalog_properties("8.6")->max_threads_per_sm == 1536);
  auto b300 = catalog_properties("sm_103");
  REQUIRE(b300);
  CHECK(b300->cc == ComputeCapability{10, 3});
  CHECK(b300->shared_per_sm == 228 * 1024);
  CHECK(catalog_properties("sm_121")->max_blocks_per_sm == 24);
  CHECK_FALSE(catalog_properties("sm_35").has_value());
  CHECK_FALSE(catalog_properties("banana").has_value());
  CHECK_FALSE(parse_arch("sm_9").has_value());
  CHECK(parse_arch("sm_100f") == ComputeCapability{10, 0});
  // Our table's per-SM block caps must equal what the calculator derives
  // from the compute capability: tiny one-warp blocks hit exactly that cap.
  for (const auto& p : gpu_catalog()) {
    CAPTURE(p.arch);
    OccupancyInput in;
    in.registers = 8;
    in.block_threads = 32;
    auto r = compute_occupancy(p, in);
    REQUIRE(r.ok);
    CHECK(r.limit_blocks == p.max_blocks_per_sm);
  }
}

TEST_CASE("formatting") {
  CHECK(format_percent(0.5) == "50%");
  CHECK(format_percent(0.375) == "37.5%");
  CHECK(format_percent(32.0 / 48) == "66.7%");
  CHECK(format_percent(1.0) == "100%");
  CHECK(format_bytes(512) == "512 B");
  CHECK(format_bytes(4096) == "4 KB");
  CHECK(format_bytes(4224) == "4.1 KB");
  CHECK(format_bytes(49152) == "48 KB");
  CHECK(limiter_list(kLimitWarps | kLimitRegisters) == "registers + warps");
  CHECK(primary_limiter(kLimitWarps | kLimitBlocks) == kLimitBlocks);
  CHECK(primary_limiter(0) == 0u);
}
