// Device limits the occupancy calculator cannot use (zeros from a driver
// that does not know an attribute, as the fake CUDA driver answers) are
// refused with a reason instead of dividing by zero: a zero warp size was
// a SIGFPE in compute_occupancy that took `warplens mcp` (and the language
// server) down mid-analysis.
#include <doctest/doctest.h>

#include "analysis/gpu_catalog.h"
#include "analysis/occupancy.h"

using namespace warplens;

TEST_CASE("gpu properties: every built-in table entry is usable") {
  for (const auto& p : gpu_catalog()) {
    CAPTURE(p.arch);
    CHECK(unusable_gpu_properties(p) == "");
  }
}

TEST_CASE("gpu properties: zero limits are named, in order") {
  GpuProperties p = *catalog_properties("sm_90");
  p.warp_size = 0;
  p.regs_per_sm = 0;
  p.shared_per_sm = -1;
  CHECK(unusable_gpu_properties(p) == "warp size 0, registers per SM 0, shared memory per SM -1");
  CHECK(p.max_warps_per_sm() == 0);

  // What the fake driver's device looks like: a compute capability and
  // nothing else.
  GpuProperties zeros;
  zeros.cc = {9, 0};
  zeros.arch = "sm_90";
  zeros.warp_size = 0;
  zeros.max_threads_per_block = 0;
  zeros.max_threads_per_sm = 0;
  zeros.max_blocks_per_sm = 0;
  zeros.regs_per_block = 0;
  zeros.regs_per_sm = 0;
  zeros.shared_per_block = 0;
  zeros.shared_per_sm = 0;
  CHECK(unusable_gpu_properties(zeros) ==
        "warp size 0, threads per block 0, threads per SM 0, blocks per SM 0, registers per block 0, "
        "registers per SM 0, shared memory per block 0, shared memory per SM 0");
}

TEST_CASE("gpu properties: compute_occupancy refuses unusable limits instead of dividing by zero") {
  GpuProperties p = *catalog_properties("sm_90");
  p.warp_size = 0;
  OccupancyInput in;
  in.registers = 32;
  in.block_threads = 256;
  OccupancyResult r = compute_occupancy(p, in);
  CHECK_FALSE(r.ok);
  CHECK(r.error == "the device's limits are unusable (warp size 0)");
  CHECK(r.max_warps == 0);
  CHECK(r.warps_per_block == 0);
}
