// TEST DOUBLE of the CUDA driver (built as libcuda.so.1 in its own
// directory): the entry points warplens-replay uses, enough to run the
// verifier end to end on a machine without a GPU. Device memory is host
// memory; work runs later, in stream order, when something waits for it
// (fake_device.h, which also models the legacy stream's ordering); kernels
// are CPU versions of the case kernels (fake_kernels) and of the replay's
// own buffer kernels (fake_helpers); events read a modelled device clock.
// A kernel that "hangs" makes every later query report not-ready and every
// synchronise block, as a real hung kernel would.
//
// Not a simulator of anything else: a cubin or fatbin is only searched for
// the kernel symbols and source file names it names.
#include <cuda.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "profiler/cubin_symbols.h"
#include "tests/unit/agent/fake_cuda/fake_device.h"
#include "tests/unit/agent/fake_cuda/fake_kernels.h"

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
  FakeStream* stream = nullptr;
  std::uint64_t seq = 0;
  bool done = true;
  double time_ns = 0;
};

int g_ctx_marker = 0;

FakeStream* resolve(CUstream s) {
  if (s == nullptr || s == CU_STREAM_LEGACY || s == CU_STREAM_PER_THREAD) return legacy_stream();
  return reinterpret_cast<FakeStream*>(s);
}

bool contains(const std::string& image, const std::string& needle) { return image.find(needle) != std::string::npos; }

std::size_t image_size(const void* image) {
  const auto* p = static_cast<const unsigned char*>(image);
  std::uint32_t magic;
  std::memcpy(&magic, p, 4);
  if (magic == 0xba55ed50u) {  // fatbin: header size (u16 at 6) + fat size (u64 at 8)
    std::uint16_t header;
    std::uint64_t fat;
    std::memcpy(&header, p + 6, 2);
    std::memcpy(&fat, p + 8, 8);
    return header + static_cast<std::size_t>(fat);
  }
  // An ELF cubin: the section and program header tables end the file.
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

double copy_cost(std::size_t bytes) { return 100.0 + static_cast<double>(bytes) * 0.01; }  // modelled: 100 GB/s

// A blocking wait on what `s` has queued: the hung kernel never finishes, a
// fault is reported.
CUresult wait_stream(FakeStream* s) {
  run_until(s, last_seq());
  if (faulted()) return CUDA_ERROR_ILLEGAL_ADDRESS;
  if (hung()) block_forever();
  return CUDA_SUCCESS;
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
  run_all();
  if (faulted()) return CUDA_ERROR_ILLEGAL_ADDRESS;
  if (hung()) block_forever();
  return CUDA_SUCCESS;
}
CUresult cuDeviceGetName(char* name, int len, CUdevice) {
  std::strncpy(name, "warplens fake GPU (test double)", static_cast<std::size_t>(len));
  return CUDA_SUCCESS;
}
CUresult cuDeviceGetPCIBusId(char* bus, int len, CUdevice) {
  std::strncpy(bus, "fake:00:00.0", static_cast<std::size_t>(len));
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
  void* p = allocate(bytes);
  if (!p) return CUDA_ERROR_OUT_OF_MEMORY;
  *ptr = reinterpret_cast<CUdeviceptr>(p);
  return CUDA_SUCCESS;
}
CUresult cuMemFree_v2(CUdeviceptr ptr) {
  run_all();  // nothing queued may still use it
  release(reinterpret_cast<void*>(ptr));
  return CUDA_SUCCESS;
}

// Synchronous copies, with the driver's documented behaviour for pageable
// host memory: HtoD returns once the data is staged (the copy itself is
// queued on the legacy stream), DtoH waits for the legacy stream only.
CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void* src, size_t bytes) {
  run_until(legacy_stream(), last_seq());
  auto staged = std::make_shared<std::vector<std::uint8_t>>(static_cast<const std::uint8_t*>(src),
                                                            static_cast<const std::uint8_t*>(src) + bytes);
  enqueue(legacy_stream(), [dst, staged] {
    std::memcpy(reinterpret_cast<void*>(dst), staged->data(), staged->size());
    return copy_cost(staged->size());
  });
  return CUDA_SUCCESS;
}
CUresult cuMemcpyDtoH_v2(void* dst, CUdeviceptr src, size_t bytes) {
  if (CUresult r = wait_stream(legacy_stream()); r != CUDA_SUCCESS) return r;
  std::memcpy(dst, reinterpret_cast<const void*>(src), bytes);
  return CUDA_SUCCESS;
}
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void* src, size_t bytes, CUstream s) {
  auto staged = std::make_shared<std::vector<std::uint8_t>>(static_cast<const std::uint8_t*>(src),
                                                            static_cast<const std::uint8_t*>(src) + bytes);
  enqueue(resolve(s), [dst, staged] {
    std::memcpy(reinterpret_cast<void*>(dst), staged->data(), staged->size());
    return copy_cost(staged->size());
  });
  return CUDA_SUCCESS;
}
CUresult cuMemcpyDtoHAsync_v2(void* dst, CUdeviceptr src, size_t bytes, CUstream s) {
  enqueue(resolve(s), [dst, src, bytes] {
    std::memcpy(dst, reinterpret_cast<const void*>(src), bytes);
    return copy_cost(bytes);
  });
  return CUDA_SUCCESS;
}
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream s) {
  enqueue(resolve(s), [dst, src, bytes] {
    std::memmove(reinterpret_cast<void*>(dst), reinterpret_cast<const void*>(src), bytes);
    return copy_cost(bytes);
  });
  return CUDA_SUCCESS;
}
CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char value, size_t count, CUstream s) {
  enqueue(resolve(s), [dst, value, count] {
    std::memset(reinterpret_cast<void*>(dst), value, count);
    return copy_cost(count);
  });
  return CUDA_SUCCESS;
}
CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned int value, size_t count, CUstream s) {
  enqueue(resolve(s), [dst, value, count] {
    auto* p = reinterpret_cast<unsigned int*>(dst);
    std::fill(p, p + count, value);
    return copy_cost(4 * count);
  });
  return CUDA_SUCCESS;
}

CUresult cuStreamCreate(CUstream* s, unsigned int flags) {
  *s = reinterpret_cast<CUstream>(new_stream((flags & CU_STREAM_NON_BLOCKING) == 0));
  return CUDA_SUCCESS;
}
CUresult cuStreamDestroy_v2(CUstream s) {
  if (!hung()) destroy_stream(resolve(s));
  return CUDA_SUCCESS;
}
CUresult cuStreamSynchronize(CUstream s) { return wait_stream(resolve(s)); }
CUresult cuEventCreate(CUevent* e, unsigned int) {
  *e = reinterpret_cast<CUevent>(new FakeEvent());
  return CUDA_SUCCESS;
}
CUresult cuEventDestroy_v2(CUevent e) {
  delete reinterpret_cast<FakeEvent*>(e);
  return CUDA_SUCCESS;
}
CUresult cuEventRecord(CUevent ev, CUstream s) {
  auto* e = reinterpret_cast<FakeEvent*>(ev);
  e->stream = resolve(s);
  e->done = false;
  e->seq = enqueue(e->stream, [e] {
    e->done = true;
    e->time_ns = device_clock_ns();
    return 0.0;
  });
  return CUDA_SUCCESS;
}
CUresult cuEventQuery(CUevent ev) {
  auto* e = reinterpret_cast<FakeEvent*>(ev);
  if (e->stream) run_until(e->stream, e->seq);
  if (faulted() && !e->done) return CUDA_ERROR_ILLEGAL_ADDRESS;
  return e->done ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
}
CUresult cuEventSynchronize(CUevent ev) {
  auto* e = reinterpret_cast<FakeEvent*>(ev);
  if (e->stream) run_until(e->stream, e->seq);
  if (faulted() && !e->done) return CUDA_ERROR_ILLEGAL_ADDRESS;
  if (!e->done) block_forever();
  return CUDA_SUCCESS;
}
CUresult cuEventElapsedTime_v2(float* ms, CUevent start, CUevent end) {
  auto* a = reinterpret_cast<FakeEvent*>(start);
  auto* b = reinterpret_cast<FakeEvent*>(end);
  if (!a->done || !b->done) return CUDA_ERROR_NOT_READY;
  *ms = static_cast<float>((b->time_ns - a->time_ns) / 1e6);
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
  // Module variables from the image's symbol table (the same reader the
  // capture uses), zero-filled.
  for (const auto& v : warplens::capture::read_cubin_symbols(image, size).variables)
    m->state.globals[v.name].assign(static_cast<std::size_t>(v.bytes), 0);
  *mod = reinterpret_cast<CUmodule>(m);
  return CUDA_SUCCESS;
}
CUresult cuModuleUnload(CUmodule mod) {
  run_all();
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
CUresult cuModuleGetGlobal_v2(CUdeviceptr* dptr, size_t* bytes, CUmodule mod, const char* name) {
  auto* m = reinterpret_cast<FakeModule*>(mod);
  auto it = m->state.globals.find(name);
  if (it == m->state.globals.end()) return CUDA_ERROR_NOT_FOUND;
  if (dptr) *dptr = reinterpret_cast<CUdeviceptr>(it->second.data());
  if (bytes) *bytes = it->second.size();
  return CUDA_SUCCESS;
}
CUresult cuFuncGetModule(CUmodule* mod, CUfunction f) {
  *mod = reinterpret_cast<CUmodule>(reinterpret_cast<FakeFunction*>(f)->module);
  return CUDA_SUCCESS;
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

static CUresult launch(CUfunction f, Geometry g, CUstream s, void** params) {
  if (faulted()) return CUDA_ERROR_ILLEGAL_ADDRESS;
  if (g.block[0] * g.block[1] * g.block[2] > 1024) return CUDA_ERROR_INVALID_VALUE;
  auto* fn = reinterpret_cast<FakeFunction*>(f);
  // The driver copies the arguments at launch.
  std::vector<std::vector<std::uint8_t>> copies;
  for (std::size_t i = 0; i < fn->info->params.size(); ++i) {
    const auto* p = static_cast<const std::uint8_t*>(params[i]);
    copies.emplace_back(p, p + fn->info->params[i].second);
  }
  enqueue(resolve(s), [fn, g, copies = std::move(copies)]() mutable {
    std::vector<void*> ptrs;
    for (auto& c : copies) ptrs.push_back(c.data());
    KernelRun r = run_kernel(fn->module->variant, fn->info->symbol, g, ptrs.data(), fn->module->state);
    if (r.outcome == LaunchOutcome::Hang) set_hung();
    if (r.outcome == LaunchOutcome::Fault) set_faulted();
    if (!fn->info->helper) memcheck_after_kernel(fn->info->symbol);
    return r.cost_ns;
  });
  return CUDA_SUCCESS;
}

CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned, CUstream s, void** params, void**) {
  return launch(f, Geometry{{gx, gy, gz}, {bx, by, bz}}, s, params);
}
CUresult cuLaunchKernelEx(const CUlaunchConfig* c, CUfunction f, void** params, void**) {
  return launch(f, Geometry{{c->gridDimX, c->gridDimY, c->gridDimZ}, {c->blockDimX, c->blockDimY, c->blockDimZ}},
                c->hStream, params);
}

CUresult cuGetErrorName(CUresult r, const char** s) {
  switch (r) {
    case CUDA_SUCCESS: *s = "CUDA_SUCCESS"; break;
    case CUDA_ERROR_NO_DEVICE: *s = "CUDA_ERROR_NO_DEVICE"; break;
    case CUDA_ERROR_INVALID_VALUE: *s = "CUDA_ERROR_INVALID_VALUE"; break;
    case CUDA_ERROR_NOT_FOUND: *s = "CUDA_ERROR_NOT_FOUND"; break;
    case CUDA_ERROR_NOT_READY: *s = "CUDA_ERROR_NOT_READY"; break;
    case CUDA_ERROR_INVALID_IMAGE: *s = "CUDA_ERROR_INVALID_IMAGE"; break;
    case CUDA_ERROR_ILLEGAL_ADDRESS: *s = "CUDA_ERROR_ILLEGAL_ADDRESS"; break;
    default: *s = "CUDA_ERROR_UNKNOWN"; break;
  }
  return CUDA_SUCCESS;
}
CUresult cuGetErrorString(CUresult r, const char** s) {
  *s = r == CUDA_ERROR_NO_DEVICE ? "no CUDA-capable device is detected (fake driver)" : "fake driver error";
  return CUDA_SUCCESS;
}

}  // extern "C"
