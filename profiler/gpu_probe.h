// Is there an NVIDIA GPU this machine can run CUDA programs on, and which?
//
// Asked before profiling (a clear "no GPU" error instead of a program that
// fails in some CUDA call) and to pick nvcc's -arch for single-file builds.
// The order is cheap to expensive: device files, then nvidia-smi (another
// process), then the driver itself (dlopen libcuda.so.1, cuInit) when
// nvidia-smi is missing or says too little.
#pragma once

#include <stop_token>
#include <string>
#include <vector>

namespace warplens::profile {

struct GpuDevice {
  int index = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0;
  std::string arch() const;  // "sm_90"
};

struct GpuStatus {
  bool available = false;
  std::string reason;              // why not, in words the user can act on
  std::vector<GpuDevice> devices;
  std::string method;              // "nvidia-smi", "driver", ...: how it was found out
};

// Setting WARPLENS_PROFILE_ASSUME_NO_GPU=1 makes the probe report no GPU
// (to test the no-GPU path on a machine that has one).
inline constexpr const char* kAssumeNoGpuEnv = "WARPLENS_PROFILE_ASSUME_NO_GPU";

GpuStatus probe_gpus(std::stop_token stop = {});

// Only the cheap part: the environment override and the device files. No
// devices are listed. Enough before running a program, whose own CUDA
// initialisation is the real test (the runner asks probe_gpus() afterwards
// when the program wrote no profile, to tell "no GPU" from other failures).
GpuStatus quick_gpu_check();

// Parses `nvidia-smi --query-gpu=index,name,compute_cap --format=csv,noheader`.
// Devices whose compute capability is not a number ("[N/A]") get 0.0.
std::vector<GpuDevice> parse_nvidia_smi_csv(const std::string& text);

}  // namespace warplens::profile
