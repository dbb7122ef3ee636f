#include "profiler/inject/capture_launch_params.h"

#include <cupti.h>  // also declares the driver callbacks' *_params structs

#include <algorithm>
#include <cstring>

#include "profiler/inject/capture_errors.h"

namespace warplens::inject {

namespace {

template <class P>
void geometry_from_classic(const P& p, LaunchParams& out) {
  out.function = p.f;
  out.grid = {p.gridDimX, p.gridDimY, p.gridDimZ};
  out.block = {p.blockDimX, p.blockDimY, p.blockDimZ};
  out.dynamic_shared_bytes = p.sharedMemBytes;
  out.stream = p.hStream;
}

void geometry_from_config(const CUlaunchConfig* c, CUfunction f, LaunchParams& out) {
  out.function = f;
  if (!c) return;
  out.grid = {c->gridDimX, c->gridDimY, c->gridDimZ};
  out.block = {c->blockDimX, c->blockDimY, c->blockDimZ};
  out.dynamic_shared_bytes = c->sharedMemBytes;
  out.stream = c->hStream;
  for (unsigned i = 0; i < c->numAttrs && c->attrs; ++i) {
    const CUlaunchAttribute& a = c->attrs[i];
    if (a.id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION)
      out.cluster = {a.value.clusterDim.x, a.value.clusterDim.y, a.value.clusterDim.z};
    else if (a.id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE)
      out.cooperative = a.value.cooperative != 0;
  }
}

// Fills the parameter buffer from kernelParams (one pointer per parameter)
// or from the packed `extra` buffer.
bool fill_buffer(void** kernel_params, void** extra, LaunchParams& out) {
  std::uint64_t end = 0;
  for (const auto& p : out.params) end = std::max(end, p.offset + p.size);
  out.buffer.assign(end, 0);
  if (out.params.empty()) return true;
  if (kernel_params) {
    for (const auto& p : out.params) {
      const void* src = kernel_params[p.index];
      if (!src) {
        out.error = "kernelParams[" + std::to_string(p.index) + "] is null";
        return false;
      }
      std::memcpy(out.buffer.data() + p.offset, src, p.size);
    }
    return true;
  }
  if (extra) {
    // The driver wants the size to be where the last parameter ends (no
    // tail padding) and fails the launch otherwise; capture reads what the
    // kernel has and leaves that judgement to the launch's own result.
    const void* buffer = nullptr;
    std::size_t size = 0;
    for (void** e = extra; *e != CU_LAUNCH_PARAM_END; e += 2) {
      if (*e == CU_LAUNCH_PARAM_BUFFER_POINTER) {
        buffer = e[1];
      } else if (*e == CU_LAUNCH_PARAM_BUFFER_SIZE && e[1]) {
        size = *static_cast<const std::size_t*>(e[1]);
      } else if (*e != CU_LAUNCH_PARAM_BUFFER_SIZE) {
        out.error = "the launch's `extra` array holds an entry warplens does not know";
        return false;
      }
    }
    if (!buffer || size == 0) {
      out.error = std::string("the launch's `extra` array has no ") +
                  (buffer ? "CU_LAUNCH_PARAM_BUFFER_SIZE" : "CU_LAUNCH_PARAM_BUFFER_POINTER");
      return false;
    }
    if (size < end) {
      out.error = "the launch's `extra` buffer holds " + std::to_string(size) +
                  " bytes; the kernel's parameters end at byte " + std::to_string(end);
      return false;
    }
    std::memcpy(out.buffer.data(), buffer, end);
    return true;
  }
  out.error = "the launch passes no parameters but the kernel takes " + std::to_string(out.params.size());
  return false;
}

}  // namespace

std::vector<capture::ParamSlot> param_slots(CUfunction f, std::string* error) {
  std::vector<capture::ParamSlot> slots;
  for (int attempt = 0; attempt < 2; ++attempt) {
    slots.clear();
    CUresult last = CUDA_SUCCESS;
    for (std::size_t i = 0; i < 4096; ++i) {
      std::size_t offset = 0, size = 0;
      last = attempt == 0 ? cuFuncGetParamInfo(f, i, &offset, &size)
                          : cuKernelGetParamInfo(reinterpret_cast<CUkernel>(f), i, &offset, &size);
      if (last != CUDA_SUCCESS) break;
      slots.push_back({static_cast<int>(i), offset, size});
    }
    // CUDA_ERROR_INVALID_VALUE past the last parameter is the normal end
    // (also for a kernel without parameters).
    if (last == CUDA_ERROR_INVALID_VALUE) return slots;
    if (error) *error = "cannot read the parameter layout: " + cu_error_name(last);
  }
  return {};
}

capture::FunctionAttributes function_attributes(CUfunction f) {
  capture::FunctionAttributes a;
  cuFuncGetAttribute(&a.num_regs, CU_FUNC_ATTRIBUTE_NUM_REGS, f);
  cuFuncGetAttribute(&a.static_shared_bytes, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f);
  cuFuncGetAttribute(&a.local_bytes, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, f);
  cuFuncGetAttribute(&a.max_threads_per_block, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f);
  cuFuncGetAttribute(&a.ptx_version, CU_FUNC_ATTRIBUTE_PTX_VERSION, f);
  cuFuncGetAttribute(&a.binary_version, CU_FUNC_ATTRIBUTE_BINARY_VERSION, f);
  return a;
}

LaunchParams read_launch_params(const LaunchCallback& cb) {
  LaunchParams out;
  const void* fp = cb.data ? cb.data->functionParams : nullptr;
  if (!fp) {
    out.error = "the launch callback carries no parameters";
    return out;
  }
  void** kernel_params = nullptr;
  void** extra = nullptr;
  switch (cb.cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel: {
      const auto& p = *static_cast<const cuLaunchKernel_params*>(fp);
      geometry_from_classic(p, out);
      kernel_params = p.kernelParams;
      extra = p.extra;
      out.api = "cuLaunchKernel";
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: {
      const auto& p = *static_cast<const cuLaunchKernel_ptsz_params*>(fp);
      geometry_from_classic(p, out);
      kernel_params = p.kernelParams;
      extra = p.extra;
      out.api = "cuLaunchKernel_ptsz";
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx: {
      const auto& p = *static_cast<const cuLaunchKernelEx_params*>(fp);
      geometry_from_config(p.config, p.f, out);
      kernel_params = p.kernelParams;
      extra = p.extra;
      out.api = "cuLaunchKernelEx";
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
      const auto& p = *static_cast<const cuLaunchKernelEx_ptsz_params*>(fp);
      geometry_from_config(p.config, p.f, out);
      kernel_params = p.kernelParams;
      extra = p.extra;
      out.api = "cuLaunchKernelEx_ptsz";
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel: {
      const auto& p = *static_cast<const cuLaunchCooperativeKernel_params*>(fp);
      geometry_from_classic(p, out);
      kernel_params = p.kernelParams;
      out.cooperative = true;
      out.api = "cuLaunchCooperativeKernel";
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz: {
      const auto& p = *static_cast<const cuLaunchCooperativeKernel_ptsz_params*>(fp);
      geometry_from_classic(p, out);
      kernel_params = p.kernelParams;
      out.cooperative = true;
      out.api = "cuLaunchCooperativeKernel_ptsz";
      break;
    }
    default:
      out.error = "launch API (callback id " + std::to_string(cb.cbid) + ") is not supported for capture";
      return out;
  }
  if (!out.function) {
    out.error = "the launch has no function handle";
    return out;
  }
  // cuLaunchKernel also accepts a CUkernel (context-independent loading);
  // the function queries want the CUfunction of the current context.
  int regs = 0;
  if (cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, out.function) != CUDA_SUCCESS) {
    CUfunction resolved = nullptr;
    if (cuKernelGetFunction(&resolved, reinterpret_cast<CUkernel>(out.function)) == CUDA_SUCCESS && resolved)
      out.function = resolved;
  }
  out.params = param_slots(out.function, &out.error);
  if (!out.error.empty()) return out;
  if (!fill_buffer(kernel_params, extra, out)) return out;
  out.ok = true;
  return out;
}

}  // namespace warplens::inject
