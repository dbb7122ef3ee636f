// TEST DOUBLE. CPU stand-ins for the verifier's GPU case kernels
// (tests/gpu/verifier_cases) and for warplens-replay's own buffer kernels
// (agent/verifier/replay/replay_kernels.cu, through the same element_ops.h
// code), so that the fake driver (fake_driver.cpp) can run warplens-replay
// end to end on machines without a GPU. A real cubin identifies its kernel
// by symbol and, through -lineinfo, by the name of the source file it was
// compiled from; that name selects the behaviour here, including each
// exploit's misbehaviour.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace warplens::fake_cuda {

struct Geometry {
  std::array<unsigned, 3> grid{1, 1, 1};
  std::array<unsigned, 3> block{1, 1, 1};
};

// Per-module state a kernel may keep (its __device__ and static data): a
// new module (a reload) starts from nothing, as on a GPU.
struct ModuleState {
  std::uint64_t launches = 0;
  std::map<std::uint64_t, std::vector<float>> memo;                // the memoising exploits' caches
  std::map<unsigned, std::pair<std::uint64_t, float>> row_memo;  // per row: fingerprint, sum
  // The module's __constant__ / __device__ variables, named as in the
  // image's symbol table (zero-filled at load: the double does not read
  // initial values from the image).
  std::map<std::string, std::vector<std::uint8_t>> globals;
};

enum class LaunchOutcome { Done, Hang, Fault };

struct KernelRun {
  LaunchOutcome outcome = LaunchOutcome::Done;
  double cost_ns = 0;  // modelled device time
};

struct KernelInfo {
  std::string symbol;
  std::vector<std::pair<std::size_t, std::size_t>> params;  // offset, size
  bool helper = false;  // one of warplens-replay's buffer kernels
};

// Kernels known to the double, by symbol.
const std::vector<KernelInfo>& known_kernels();
// The case source file an image was compiled from ("scale_add.cu", ...).
std::string find_variant(const std::string& image);

// Runs `symbol` as compiled from source file `variant`.
KernelRun run_kernel(const std::string& variant, const std::string& symbol, const Geometry& g, void** params,
                     ModuleState& state);

// The replay's buffer kernels (fake_helpers.cpp); false when `symbol` is none.
bool run_helper(const std::string& symbol, void** params, double* cost_ns);
std::vector<KernelInfo> helper_kernels();

}  // namespace warplens::fake_cuda
