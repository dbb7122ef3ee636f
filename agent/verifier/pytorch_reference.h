// Timing a PyTorch reference of the same computation (a KernelBench-style
// module: `Model`, `get_inputs()`, optional `get_init_inputs()`), eager and
// under torch.compile, with the same method as the kernels: warm-up, an L2
// flush before each run, CUDA events around the call with a device-wide
// synchronise, the same number of timed runs. Runs pytorch_timing.py with
// python3 in a child process; only used for reward level 3.
#pragma once

#include <filesystem>
#include <stop_token>
#include <string>
#include <vector>

namespace warplens::verifier {

struct PytorchRequest {
  std::filesystem::path model;     // model.py
  std::string python;              // empty: python3
  std::filesystem::path script;    // empty: find_pytorch_script()
  int warmup = 3;
  int runs = 30;
  double timeout_s = 600;          // torch.compile's first call can take a minute
};

struct PytorchTiming {
  bool ok = false;                 // eager timing worked
  std::string error;               // why not (python, torch, the model)
  std::string torch_version;
  std::string device;
  std::vector<double> eager_us, eager_device_us;
  bool compiled_ok = false;
  std::string compile_error;       // torch.compile failed: level 3 cannot be assessed
  std::vector<double> compiled_us, compiled_device_us;
  double wall_ms = 0;
};

PytorchTiming time_pytorch_reference(const PytorchRequest& request, std::stop_token stop = {});

// Parses the script's JSON output (last line of stdout).
PytorchTiming parse_pytorch_output(const std::string& stdout_text);

// The bundled pytorch_timing.py: $WARPLENS_DATA_DIR, then
// <exe dir>/../share/warplens, then the build tree's copy.
std::filesystem::path find_pytorch_script();

}  // namespace warplens::verifier
