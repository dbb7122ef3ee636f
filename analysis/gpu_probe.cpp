#include "analysis/gpu_probe.h"

#include <dlfcn.h>

#include <mutex>

#if defined(WARPLENS_HAVE_CUDA_HEADERS) && __has_include(<cuda.h>)
#include <cuda.h>
#define WARPLENS_CHECK_ATTR(name, value) static_assert(static_cast<int>(CU_DEVICE_ATTRIBUTE_##name) == static_cast<int>(value))
#else
#define WARPLENS_CHECK_ATTR(name, value) static_assert(true)
#endif

namespace warplens {

namespace {

// CUdevice_attribute values (driver API ABI).
enum Attribute : int {
  kMaxThreadsPerBlock = 1,
  kMaxSharedMemoryPerBlock = 8,
  kWarpSize = 10,
  kMaxRegistersPerBlock = 12,
  kMultiprocessorCount = 16,
  kMaxThreadsPerMultiprocessor = 39,
  kComputeCapabilityMajor = 75,
  kComputeCapabilityMinor = 76,
  kMaxSharedMemoryPerMultiprocessor = 81,
  kMaxRegistersPerMultiprocessor = 82,
  kMaxSharedMemoryPerBlockOptin = 97,
  kMaxBlocksPerMultiprocessor = 106,
  kReservedSharedMemoryPerBlock = 111,
};
WARPLENS_CHECK_ATTR(MAX_THREADS_PER_BLOCK, kMaxThreadsPerBlock);
WARPLENS_CHECK_ATTR(MAX_SHARED_MEMORY_PER_BLOCK, kMaxSharedMemoryPerBlock);
WARPLENS_CHECK_ATTR(WARP_SIZE, kWarpSize);
WARPLENS_CHECK_ATTR(MAX_REGISTERS_PER_BLOCK, kMaxRegistersPerBlock);
WARPLENS_CHECK_ATTR(MULTIPROCESSOR_COUNT, kMultiprocessorCount);
WARPLENS_CHECK_ATTR(MAX_THREADS_PER_MULTIPROCESSOR, kMaxThreadsPerMultiprocessor);
WARPLENS_CHECK_ATTR(COMPUTE_CAPABILITY_MAJOR, kComputeCapabilityMajor);
WARPLENS_CHECK_ATTR(COMPUTE_CAPABILITY_MINOR, kComputeCapabilityMinor);
WARPLENS_CHECK_ATTR(MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, kMaxSharedMemoryPerMultiprocessor);
WARPLENS_CHECK_ATTR(MAX_REGISTERS_PER_MULTIPROCESSOR, kMaxRegistersPerMultiprocessor);
WARPLENS_CHECK_ATTR(MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, kMaxSharedMemoryPerBlockOptin);
WARPLENS_CHECK_ATTR(MAX_BLOCKS_PER_MULTIPROCESSOR, kMaxBlocksPerMultiprocessor);
WARPLENS_CHECK_ATTR(RESERVED_SHARED_MEMORY_PER_BLOCK, kReservedSharedMemoryPerBlock);

using CuInit = int (*)(unsigned);
using CuDeviceGetCount = int (*)(int*);
using CuDeviceGet = int (*)(int*, int);
using CuDeviceGetAttribute = int (*)(int*, int, int);
using CuDeviceGetName = int (*)(char*, int, int);
using CuGetErrorName = int (*)(int, const char**);

struct Driver {
  void* handle = nullptr;
  CuInit init = nullptr;
  CuDeviceGetCount get_count = nullptr;
  CuDeviceGet get = nullptr;
  CuDeviceGetAttribute get_attribute = nullptr;
  CuDeviceGetName get_name = nullptr;
  CuGetErrorName error_name = nullptr;  // optional
  int init_result = -1;
  std::string error;
};

// Loaded once; never unloaded (the driver does not support it well).
const Driver& driver() {
  static const Driver d = [] {
    Driver d;
    d.handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!d.handle) {
      const char* e = dlerror();
      d.error = std::string("no CUDA driver (libcuda.so.1): ") + (e ? e : "not found");
      return d;
    }
    d.init = reinterpret_cast<CuInit>(dlsym(d.handle, "cuInit"));
    d.get_count = reinterpret_cast<CuDeviceGetCount>(dlsym(d.handle, "cuDeviceGetCount"));
    d.get = reinterpret_cast<CuDeviceGet>(dlsym(d.handle, "cuDeviceGet"));
    d.get_attribute = reinterpret_cast<CuDeviceGetAttribute>(dlsym(d.handle, "cuDeviceGetAttribute"));
    d.get_name = reinterpret_cast<CuDeviceGetName>(dlsym(d.handle, "cuDeviceGetName"));
    d.error_name = reinterpret_cast<CuGetErrorName>(dlsym(d.handle, "cuGetErrorName"));
    if (!d.init || !d.get_count || !d.get || !d.get_attribute || !d.get_name) {
      d.error = "libcuda.so.1 lacks the driver API entry points";
      return d;
    }
    d.init_result = d.init(0);
    if (d.init_result != 0) {
      const char* name = nullptr;
      if (d.error_name) d.error_name(d.init_result, &name);
      d.error = "cuInit failed with CUresult " + std::to_string(d.init_result) +
                (name ? " " + std::string(name) : std::string()) +
                (d.init_result == 100 ? " (no CUDA-capable device)"
                 : d.init_result == 34 ? " (the stub driver library, not a real driver)"
                                       : "");
    }
    return d;
  }();
  return d;
}

GpuProbeResult query(int device) {
  GpuProbeResult r;
  const Driver& d = driver();
  if (!d.error.empty()) {
    r.error = d.error;
    return r;
  }
  if (d.get_count(&r.device_count) != 0 || r.device_count <= device) {
    r.error = "no CUDA device " + std::to_string(device) + " (" + std::to_string(r.device_count) +
              " present)";
    return r;
  }
  int dev = 0;
  if (d.get(&dev, device) != 0) {
    r.error = "cuDeviceGet failed";
    return r;
  }
  bool ok = true;
  auto attr = [&](int a) {
    int v = 0;
    if (d.get_attribute(&v, a, dev) != 0) ok = false;
    return v;
  };
  GpuProperties p;
  p.cc = {attr(kComputeCapabilityMajor), attr(kComputeCapabilityMinor)};
  p.arch = arch_name(p.cc);
  p.warp_size = attr(kWarpSize);
  p.max_threads_per_block = attr(kMaxThreadsPerBlock);
  p.max_threads_per_sm = attr(kMaxThreadsPerMultiprocessor);
  p.max_blocks_per_sm = attr(kMaxBlocksPerMultiprocessor);
  p.regs_per_block = attr(kMaxRegistersPerBlock);
  p.regs_per_sm = attr(kMaxRegistersPerMultiprocessor);
  p.shared_per_block = attr(kMaxSharedMemoryPerBlock);
  p.shared_per_sm = attr(kMaxSharedMemoryPerMultiprocessor);
  p.shared_per_block_optin = attr(kMaxSharedMemoryPerBlockOptin);
  p.reserved_shared_per_block = attr(kReservedSharedMemoryPerBlock);
  p.sm_count = attr(kMultiprocessorCount);
  char name[256] = {};
  if (d.get_name(name, sizeof name, dev) != 0) ok = false;
  p.name = name;
  p.source = "device " + std::to_string(device) + " (driver): " + p.name;
  if (!ok) {
    r.error = "cuDeviceGetAttribute failed";
    return r;
  }
  // A device whose limits cannot be computed with is no device to the
  // analysis: the caller falls back to the built-in table and says why.
  if (std::string why = unusable_gpu_properties(p); !why.empty()) {
    r.error = p.source + " reported unusable limits (" + why + ")";
    return r;
  }
  r.properties = std::move(p);
  return r;
}

}  // namespace

GpuDriverListing list_gpu_devices() {
  GpuDriverListing out;
  const Driver& d = driver();
  if (!d.error.empty()) {
    out.error = d.error;
    return out;
  }
  int n = 0;
  if (d.get_count(&n) != 0 || n == 0) {
    out.error = "the CUDA driver reports no devices";
    return out;
  }
  for (int i = 0; i < n; ++i) {
    int dev = 0;
    if (d.get(&dev, i) != 0) continue;
    GpuDriverDevice g;
    g.index = i;
    char name[256] = {};
    if (d.get_name(name, sizeof name, dev) == 0) g.name = name;
    d.get_attribute(&g.cc.major, kComputeCapabilityMajor, dev);
    d.get_attribute(&g.cc.minor, kComputeCapabilityMinor, dev);
    out.devices.push_back(std::move(g));
  }
  if (out.devices.empty()) out.error = "the CUDA driver reports no usable devices";
  return out;
}

GpuProbeResult probe_gpu(int device) {
  if (device != 0) return query(device);
  static std::once_flag once;
  static GpuProbeResult cached;
  std::call_once(once, [] { cached = query(0); });
  return cached;
}

}  // namespace warplens
