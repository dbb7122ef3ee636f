// TEST DOUBLE. CPU stand-ins for the launch-change cases of issue 13
// (tests/gpu/launch_cases: matvec and its warp-per-row candidate, the
// row-major matmul and its swapped mapping, in-place saxpy and its
// persistent grid-stride form, mul + bias_relu and their fusion; a 5-tap
// convolution reading a __constant__ filter, for module variables). Like
// fake_kernels.cpp, each mirrors its CUDA source's per-thread index
// arithmetic, so a candidate replayed with the wrong grid or block computes
// the wrong elements here exactly as it would on a GPU.
//
// Each also states a simulated duration (the fake GPU's clock, see
// fake_driver.cpp): DRAM sectors a warp-level access pattern would touch,
// at 1 ns each. Not a measurement of anything; it only gives the variants
// the order a GPU gives them (uncoalesced slower than coalesced, a fused
// pass cheaper than two), so end-to-end tests can see a winner offered.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tests/unit/agent/fake_cuda/fake_kernels.h"

namespace warplens::fake_cuda {

const std::vector<KernelInfo>& launch_case_kernels();
const std::vector<std::string>& launch_case_variants();  // source file names, e.g. "warp_per_row_matvec.cu"

struct LaunchCaseRun {
  LaunchOutcome outcome = LaunchOutcome::Done;
  double simulated_us = 0;
};
// nullopt when `symbol` is not a launch-case kernel.
// `state`: the module's variables (the __constant__ filter case).
std::optional<LaunchCaseRun> run_launch_case(const std::string& variant, const std::string& symbol, const Geometry& g,
                                             void** params, ModuleState& state);

}  // namespace warplens::fake_cuda
