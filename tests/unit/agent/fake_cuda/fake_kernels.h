// TEST DOUBLE. CPU stand-ins for the verifier's GPU case kernels
// (tests/gpu/verifier_cases), so that the fake driver (fake_driver.cpp) can
// run warplens-replay end to end on machines without a GPU. A real cubin
// identifies its kernel by symbol and, through -lineinfo, by the name of the
// source file it was compiled from; that name selects the behaviour here,
// including each exploit's misbehaviour.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace warplens::fake_cuda {

struct Geometry {
  std::array<unsigned, 3> grid{1, 1, 1};
  std::array<unsigned, 3> block{1, 1, 1};
};

// Per-module state a kernel may keep (a __device__ variable).
struct ModuleState {
  std::uint64_t launches = 0;
};

enum class LaunchOutcome { Done, Hang };

struct KernelInfo {
  std::string symbol;
  std::vector<std::pair<std::size_t, std::size_t>> params;  // offset, size
};

// Kernels known to the double, by symbol.
const std::vector<KernelInfo>& known_kernels();

// Runs `symbol` as compiled from source file `variant` ("scale_add.cu",
// "exploit_half_output.cu", ...). Returns Hang for a kernel that never ends.
// Kernels with a simulated duration (fake_launch_kernels.h) set
// `*simulated_us`; the others leave it alone (their time is the CPU's).
LaunchOutcome run_kernel(const std::string& variant, const std::string& symbol, const Geometry& g, void** params,
                         ModuleState& state, double* simulated_us = nullptr);

}  // namespace warplens::fake_cuda
