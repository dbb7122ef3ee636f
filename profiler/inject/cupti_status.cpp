#include "profiler/inject/cupti_status.h"

namespace warplens::inject {

std::string describe(CUptiResult r) {
  const char* text = nullptr;
  if (cuptiGetResultString(r, &text) != CUPTI_SUCCESS || !text) text = "unknown CUPTI error";
  return std::string(text) + " (" + std::to_string(int(r)) + ")";
}

Refusal explain_sass_refusal(CUptiResult r, const std::string& step) {
  const std::string what = step + " returned " + describe(r) + ". ";
  const std::string fallback =
      "Per-line metrics are unavailable; kernel timings and launch data were still collected.";
  switch (r) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
      return {"counters-permission",
              what +
                  "Access to the GPU performance counters is restricted to administrators "
                  "(driver option NVreg_RestrictProfilingToAdminUsers=1). Run as root, or "
                  "allow profiling for all users: https://developer.nvidia.com/ERR_NVGPUCTRPERM. " +
                  fallback};
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_INVALID_CHIP_NAME:
      return {"sass-unsupported",
              what +
                  "This GPU or configuration does not support CUPTI SASS metrics (they need "
                  "compute capability 7.0 or newer and no MIG, vGPU without profiling, SLI, "
                  "CMP or confidential computing). " +
                  fallback};
    case CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED:
      return {"legacy-profiler",
              what +
                  "The driver refused a legacy profiling interface (removed in CUDA 13). " +
                  fallback};
    case CUPTI_ERROR_OLD_PROFILER_API_INITIALIZED:
    case CUPTI_ERROR_HARDWARE_BUSY:
      return {"counters-busy",
              what +
                  "Another profiler is using the GPU's counters (Nsight Compute, DCGM "
                  "profiling, or a second profiling library in this process). " +
                  fallback};
    default:
      return {"sass-unavailable", what + fallback};
  }
}

}  // namespace warplens::inject
