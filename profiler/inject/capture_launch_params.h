// What a driver launch callback says about the launch, in one struct: the
// function, its geometry and attributes, and the raw parameter buffer laid
// out as cuFuncGetParamInfo describes it (for cuLaunchKernel,
// cuLaunchKernelEx, cuLaunchCooperativeKernel and their _ptsz variants;
// parameters passed through `kernelParams` or through the `extra` buffer).
#pragma once

#include <cuda.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "profiler/capture_format.h"
#include "profiler/inject/callback_dispatch.h"

namespace warplens::inject {

struct LaunchParams {
  bool ok = false;
  std::string error;                  // why the launch cannot be captured
  CUfunction function = nullptr;
  CUstream stream = nullptr;
  std::string api;                    // "cuLaunchKernel_ptsz", ...
  std::array<std::uint32_t, 3> grid{1, 1, 1};
  std::array<std::uint32_t, 3> block{1, 1, 1};
  std::uint32_t dynamic_shared_bytes = 0;
  std::array<std::uint32_t, 3> cluster{0, 0, 0};
  bool cooperative = false;
  std::vector<capture::ParamSlot> params;
  std::vector<std::uint8_t> buffer;
};

// Reads the callback's functionParams (valid at API_ENTER).
LaunchParams read_launch_params(const LaunchCallback& cb);

// Offsets and sizes of every parameter, through cuFuncGetParamInfo (looping
// until CUDA_ERROR_INVALID_VALUE) or, for a CUkernel handle,
// cuKernelGetParamInfo. Empty with `error` set when neither answers.
std::vector<capture::ParamSlot> param_slots(CUfunction f, std::string* error);

capture::FunctionAttributes function_attributes(CUfunction f);

}  // namespace warplens::inject
