// The name of a driver API result, for capture refusals ("CUDA_ERROR_ILLEGAL_ADDRESS").
#pragma once

#include <cuda.h>

#include <string>

namespace warplens::inject {

inline std::string cu_error_name(CUresult r) {
  const char* name = nullptr;
  if (cuGetErrorName(r, &name) == CUDA_SUCCESS && name) return name;
  return "CUresult " + std::to_string(static_cast<int>(r));
}

}  // namespace warplens::inject
