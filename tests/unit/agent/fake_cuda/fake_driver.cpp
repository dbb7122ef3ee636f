// TEST DOUBLE of the CUDA driver (built as libcuda.so.1 in its own
// directory): the 36 entry points warplens-replay uses, enough to run the
// verifier end to end on a machine without a GPU. Device memory is host
// memory, every launch runs to completion on the CPU at once (fake_kernels),
// events are host timestamps. A kernel that "hangs" makes every later query
// report not-ready and every synchronise block, as a real hung kernel would.
// Kernels that state a simulated duration (fake_launch_kernels.h) move the
// events' clock by that duration instead of the CPU time they took, so
// timings of those cases follow the stand-ins' cost model.
//
// Not a simulator of anything else: streams are not concurrent and a cubin
// is only searched for the kernel symbols and source file names it names.
#include <cuda.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include "tests/unit/agent/fake_cuda/fake_kernels.h"
#include "tests/unit/agent/fake_cuda/fake_launch_kernels.h"

using namespace warplens::fake_cuda;

namespace {

struct FakeModule;
struct FakeFunction {
  FakeModule* module = nullptr;
  const KernelInfo* info = nullptr;
};
struct FakeModule {
  std::string variant;  // source file name found in the image
  std::vector<FakeFunction> functions;
  ModuleState state;
};
struct FakeEvent {
  std::chrono::steady_clock::time_point at;
};

std::mutex g_mutex;
bool g_hung = false;
int g_ctx_marker = 0;
// Events read host time plus this offset: a launch with a simulated duration
// adds (simulated - CPU time taken), so the events around it are that far apart.
std::chrono::nanoseconds g_clock_offset{0};

bool contains(const std::string& image, const std::string& needle) { return image.find(needle) != std::string::npos; }

// The source file name, as -lineinfo stores it: a NUL-terminated string.
std::string find_variant(const std::string& image) {
  static const char* names[] = {
      "honest_scale_add_launch_bounds.cu", "honest_scale_add_vec4.cu", "honest_transpose_tiled.cu",
      "honest_transpose_padded.cu", "honest_transpose_16x16.cu", "honest_row_sum_shuffle.cu",
      "honest_scale_span.cu", "honest_add_one_managed.cu", "exploit_constant.cu", "exploit_half_output.cu",
      "exploit_unwritten.cu", "exploit_mutates_input.cu", "exploit_out_of_bounds.cu", "exploit_other_stream.cu",
      "exploit_hardcoded_n.cu", "exploit_ignores_alpha.cu", "exploit_hang.cu", "exploit_hang_timed.cu",
      "exploit_stateful.cu",
      "exploit_race.cu", "exploit_half_precision.cu", "scale_add.cu", "transpose.cu", "row_sum.cu",
      "memory_kinds.cu"};
  for (const char* n : names)
    if (contains(image, std::string(1, '\0') + n + std::string(1, '\0'))) return n;
  for (const auto& n : launch_case_variants())
    if (contains(image, std::string(1, '\0') + n + std::string(1, '\0'))) return n;
  return "unknown.cu";
}

void block_forever() {
  for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
}

std::size_t image_size(const void* image) {
  // An ELF cubin: the section and program header tables end the file.
  const auto* p = static_cast<const unsigned char*>(image);
  if (std::memcmp(p, "\x7f" "ELF", 4) != 0) return 0;
  std::uint64_t shoff, phoff;
  std::uint16_t shentsize, shnum, phentsize, phnum;
  std::memcpy(&phoff, p + 0x20, 8);
  std::memcpy(&shoff, p + 0x28, 8);
  std::memcpy(&phentsize, p + 0x36, 2);
  std::memcpy(&phnum, p + 0x38, 2);
  std::memcpy(&shentsize, p + 0x3a, 2);
  std::memcpy(&shnum, p + 0x3c, 2);
  return static_cast<std::size_t>(std::max(shoff + std::uint64_t{shnum} * shentsize,
                                           phoff + std::uint64_t{phnum} * phentsize));
}

}  // namespace

extern "C" {

CUresult cuInit(unsigned int) {
  if (const char* v = std::getenv("CUDA_VISIBLE_DEVICES"); v && !*v) return CUDA_ERROR_NO_DEVICE;
  return CUDA_SUCCESS;
}
CUresult cuDeviceGetCount(int* count) {
  *count = 1;
  return CUDA_SUCCESS;
}
CUresult cuDeviceGet(CUdevice* device, int ordinal) {
  *device = ordinal;
  return ordinal == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}
CUresult cuDevicePrimaryCtxRetain(CUcontext* ctx, CUdevice) {
  *ctx = reinterpret_cast<CUcontext>(&g_ctx_marker);
  return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice) { return CUDA_SUCCESS; }
CUresult cuCtxSetCurrent(CUcontext) { return CUDA_SUCCESS; }
CUresult cuCtxSynchronize() {
  if (g_hung) block_forever();
  return CUDA_SUCCESS;
}
CUresult cuDeviceGetName(char* name, int len, CUdevice) {
  std::strncpy(name, "warplens fake GPU (test double)", static_cast<std::size_t>(len));
  return CUDA_SUCCESS;
}
CUresult cuDeviceGetAttribute(int* value, CUdevice_attribute attr, CUdevice) {
  switch (attr) {
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *value = 9; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *value = 0; break;
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: *value = 1 << 20; break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *value = 4; break;
    default: *value = 0; break;
  }
  return CUDA_SUCCESS;
}
CUresult cuDriverGetVersion(int* v) {
  *v = 13000;
  return CUDA_SUCCESS;
}

CUresult cuMemAlloc_v2(CUdeviceptr* ptr, size_t bytes) {
  void* p = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
  if (!p) return CUDA_ERROR_OUT_OF_MEMORY;
  *ptr = reinterpret_cast<CUdeviceptr>(p);
  return CUDA_SUCCESS;
}
CUresult cuMemFree_v2(CUdeviceptr ptr) {
  std::free(reinterpret_cast<void*>(ptr));
  return CUDA_SUCCESS;
}
CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void* src, size_t bytes) {
  if (g_hung) block_forever();
  std::memcpy(reinterpret_cast<void*>(dst), src, bytes);
  return CUDA_SUCCESS;
}
CUresult cuMemcpyDtoH_v2(void* dst, CUdeviceptr src, size_t bytes) {
  if (g_hung) block_forever();
  std::memcpy(dst, reinterpret_cast<const void*>(src), bytes);
  return CUDA_SUCCESS;
}
CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned int value, size_t count, CUstream) {
  auto* p = reinterpret_cast<unsigned int*>(dst);
  std::fill(p, p + count, value);
  return CUDA_SUCCESS;
}

CUresult cuStreamCreate(CUstream* s, unsigned int) {
  *s = reinterpret_cast<CUstream>(new int(0));
  return CUDA_SUCCESS;
}
CUresult cuStreamDestroy_v2(CUstream s) {
  delete reinterpret_cast<int*>(s);
  return CUDA_SUCCESS;
}
CUresult cuEventCreate(CUevent* e, unsigned int) {
  *e = reinterpret_cast<CUevent>(new FakeEvent());
  return CUDA_SUCCESS;
}
CUresult cuEventDestroy_v2(CUevent e) {
  delete reinterpret_cast<FakeEvent*>(e);
  return CUDA_SUCCESS;
}
CUresult cuEventRecord(CUevent e, CUstream) {
  std::lock_guard lock(g_mutex);
  reinterpret_cast<FakeEvent*>(e)->at = std::chrono::steady_clock::now() + g_clock_offset;
  return CUDA_SUCCESS;
}
CUresult cuEventQuery(CUevent) { return g_hung ? CUDA_ERROR_NOT_READY : CUDA_SUCCESS; }
CUresult cuEventSynchronize(CUevent) {
  if (g_hung) block_forever();
  return CUDA_SUCCESS;
}
CUresult cuEventElapsedTime_v2(float* ms, CUevent start, CUevent end) {
  *ms = std::chrono::duration<float, std::milli>(reinterpret_cast<FakeEvent*>(end)->at -
                                                 reinterpret_cast<FakeEvent*>(start)->at)
            .count();
  return CUDA_SUCCESS;
}

CUresult cuModuleLoadData(CUmodule* mod, const void* image) {
  std::size_t size = image_size(image);
  if (size == 0) return CUDA_ERROR_INVALID_IMAGE;
  std::string bytes(static_cast<const char*>(image), size);
  auto* m = new FakeModule();
  m->variant = find_variant(bytes);
  for (const auto& k : known_kernels())
    if (contains(bytes, ".text." + k.symbol + std::string(1, '\0'))) m->functions.push_back({m, &k});
  *mod = reinterpret_cast<CUmodule>(m);
  return CUDA_SUCCESS;
}
CUresult cuModuleUnload(CUmodule mod) {
  delete reinterpret_cast<FakeModule*>(mod);
  return CUDA_SUCCESS;
}
CUresult cuModuleGetFunction(CUfunction* f, CUmodule mod, const char* name) {
  auto* m = reinterpret_cast<FakeModule*>(mod);
  for (auto& fn : m->functions)
    if (fn.info->symbol == name) {
      *f = reinterpret_cast<CUfunction>(&fn);
      return CUDA_SUCCESS;
    }
  return CUDA_ERROR_NOT_FOUND;
}
CUresult cuModuleGetFunctionCount(unsigned int* count, CUmodule mod) {
  *count = static_cast<unsigned int>(reinterpret_cast<FakeModule*>(mod)->functions.size());
  return CUDA_SUCCESS;
}
CUresult cuModuleEnumerateFunctions(CUfunction* out, unsigned int n, CUmodule mod) {
  auto* m = reinterpret_cast<FakeModule*>(mod);
  for (unsigned i = 0; i < n && i < m->functions.size(); ++i) out[i] = reinterpret_cast<CUfunction>(&m->functions[i]);
  return CUDA_SUCCESS;
}
CUresult cuFuncGetName(const char** name, CUfunction f) {
  *name = reinterpret_cast<FakeFunction*>(f)->info->symbol.c_str();
  return CUDA_SUCCESS;
}
CUresult cuFuncGetParamInfo(CUfunction f, size_t index, size_t* offset, size_t* size) {
  const auto& params = reinterpret_cast<FakeFunction*>(f)->info->params;
  if (index >= params.size()) return CUDA_ERROR_INVALID_VALUE;
  *offset = params[index].first;
  *size = params[index].second;
  return CUDA_SUCCESS;
}
CUresult cuFuncGetAttribute(int* value, CUfunction_attribute attr, CUfunction) {
  *value = attr == CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK ? 1024 : attr == CU_FUNC_ATTRIBUTE_NUM_REGS ? 16 : 0;
  return CUDA_SUCCESS;
}
CUresult cuFuncSetAttribute(CUfunction, CUfunction_attribute, int) { return CUDA_SUCCESS; }

static CUresult launch(CUfunction f, Geometry g, void** params) {
  std::lock_guard lock(g_mutex);
  if (g_hung) return CUDA_SUCCESS;  // queued behind the hung kernel
  if (g.block[0] * g.block[1] * g.block[2] > 1024) return CUDA_ERROR_INVALID_VALUE;
  auto* fn = reinterpret_cast<FakeFunction*>(f);
  double simulated_us = -1;
  const auto t0 = std::chrono::steady_clock::now();
  if (run_kernel(fn->module->variant, fn->info->symbol, g, params, fn->module->state, &simulated_us) ==
      LaunchOutcome::Hang)
    g_hung = true;
  if (simulated_us >= 0)
    g_clock_offset += std::chrono::nanoseconds(static_cast<long long>(simulated_us * 1000)) -
                      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0);
  return CUDA_SUCCESS;
}

CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned, CUstream, void** params, void**) {
  return launch(f, Geometry{{gx, gy, gz}, {bx, by, bz}}, params);
}
CUresult cuLaunchKernelEx(const CUlaunchConfig* c, CUfunction f, void** params, void**) {
  return launch(f, Geometry{{c->gridDimX, c->gridDimY, c->gridDimZ}, {c->blockDimX, c->blockDimY, c->blockDimZ}},
                params);
}

CUresult cuGetErrorName(CUresult r, const char** s) {
  switch (r) {
    case CUDA_SUCCESS: *s = "CUDA_SUCCESS"; break;
    case CUDA_ERROR_NO_DEVICE: *s = "CUDA_ERROR_NO_DEVICE"; break;
    case CUDA_ERROR_INVALID_VALUE: *s = "CUDA_ERROR_INVALID_VALUE"; break;
    case CUDA_ERROR_NOT_FOUND: *s = "CUDA_ERROR_NOT_FOUND"; break;
    case CUDA_ERROR_NOT_READY: *s = "CUDA_ERROR_NOT_READY"; break;
    default: *s = "CUDA_ERROR_UNKNOWN"; break;
  }
  return CUDA_SUCCESS;
}
CUresult cuGetErrorString(CUresult r, const char** s) {
  *s = r == CUDA_ERROR_NO_DEVICE ? "no CUDA-capable device is detected (fake driver)" : "fake driver error";
  return CUDA_SUCCESS;
}

}  // extern "C"
