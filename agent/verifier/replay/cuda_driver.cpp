#include "agent/verifier/replay/cuda_driver.h"

#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>

#include "agent/verifier/kernel_signature.h"

namespace warplens::replay {

std::string error_name(CUresult r) {
  const char* name = nullptr;
  if (cuGetErrorName(r, &name) == CUDA_SUCCESS && name) return name;
  return "CUresult " + std::to_string(static_cast<int>(r));
}

namespace {
std::string describe(CUresult r) {
  const char* text = nullptr;
  std::string s = error_name(r);
  if (cuGetErrorString(r, &text) == CUDA_SUCCESS && text) s += " (" + std::string(text) + ")";
  return s;
}
}  // namespace

CudaError::CudaError(CUresult c, const std::string& what) : std::runtime_error(what + ": " + describe(c)), code(c) {}

bool CudaError::sticky() const {
  switch (code) {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_ECC_UNCORRECTABLE:
    case CUDA_ERROR_CONTEXT_IS_DESTROYED:
      return true;
    default:
      return false;
  }
}

void check(CUresult r, const char* what) {
  if (r != CUDA_SUCCESS) throw CudaError(r, what);
}

void wait_for_event(CUevent event, std::chrono::steady_clock::time_point since, double deadline_s,
                    bool sleep_between_polls) {
  const auto deadline = since + std::chrono::duration<double>(deadline_s);
  for (unsigned polls = 0;; ++polls) {
    CUresult r = cuEventQuery(event);
    if (r == CUDA_SUCCESS) return;
    if (r != CUDA_ERROR_NOT_READY) throw CudaError(r, "kernel execution");
    if (std::chrono::steady_clock::now() > deadline) {
      char limit[32];
      std::snprintf(limit, sizeof limit, "%.1f s", deadline_s);
      throw KernelHang(std::string("did not finish within ") + limit);
    }
    if (sleep_between_polls && polls > 64) std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

Context::Context() {
  check(cuInit(0), "cuInit");
  int count = 0;
  check(cuDeviceGetCount(&count), "cuDeviceGetCount");
  if (count == 0) throw CudaError(CUDA_ERROR_NO_DEVICE, "cuDeviceGetCount");
  check(cuDeviceGet(&device_, 0), "cuDeviceGet");
  check(cuDevicePrimaryCtxRetain(&ctx_, device_), "cuDevicePrimaryCtxRetain");
  check(cuCtxSetCurrent(ctx_), "cuCtxSetCurrent");
}

Context::~Context() {
  if (ctx_) {
    cuCtxSynchronize();
    cuDevicePrimaryCtxRelease(device_);
  }
}

verifier::DeviceSummary Context::summary() const {
  verifier::DeviceSummary s;
  char name[256] = {0};
  check(cuDeviceGetName(name, sizeof name - 1, device_), "cuDeviceGetName");
  s.name = name;
  check(cuDeviceGetAttribute(&s.cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device_), "cuDeviceGetAttribute");
  check(cuDeviceGetAttribute(&s.cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device_), "cuDeviceGetAttribute");
  int l2 = 0;
  check(cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, device_), "cuDeviceGetAttribute");
  s.l2_bytes = static_cast<std::uint64_t>(l2);
  check(cuDeviceGetAttribute(&s.sm_count, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device_), "cuDeviceGetAttribute");
  check(cuDriverGetVersion(&s.driver_version), "cuDriverGetVersion");
  s.arch = "sm_" + std::to_string(s.cc_major) + std::to_string(s.cc_minor);
  return s;
}

DeviceBuffer::DeviceBuffer(std::uint64_t bytes) : bytes_(bytes) {
  // Zero-byte allocations are legal in the captured program (rare); keep a
  // tiny real allocation so the pointer is valid and distinct.
  check(cuMemAlloc(&ptr_, bytes ? bytes : 256), "cuMemAlloc");
}
DeviceBuffer::~DeviceBuffer() {
  if (ptr_) cuMemFree(ptr_);
}
DeviceBuffer::DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(o.ptr_), bytes_(o.bytes_) {
  o.ptr_ = 0;
  o.bytes_ = 0;
}
DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
  if (this != &o) {
    if (ptr_) cuMemFree(ptr_);
    ptr_ = o.ptr_;
    bytes_ = o.bytes_;
    o.ptr_ = 0;
    o.bytes_ = 0;
  }
  return *this;
}
void copy_dtod(CUdeviceptr dst, CUdeviceptr src, std::uint64_t bytes, CUstream s) {
  if (bytes) check(cuMemcpyDtoDAsync(dst, src, bytes, s), "cuMemcpyDtoDAsync");
}
void fill_bytes(CUdeviceptr dst, std::uint8_t value, std::uint64_t bytes, CUstream s) {
  if (bytes) check(cuMemsetD8Async(dst, value, bytes, s), "cuMemsetD8Async");
}
void upload(CUdeviceptr dst, const void* host, std::uint64_t bytes, CUstream s) {
  if (bytes) check(cuMemcpyHtoDAsync(dst, host, bytes, s), "cuMemcpyHtoDAsync");
  sync(s);
}
void download(void* host, CUdeviceptr src, std::uint64_t bytes, CUstream s) {
  if (bytes) check(cuMemcpyDtoHAsync(host, src, bytes, s), "cuMemcpyDtoHAsync");
  sync(s);
}
void sync(CUstream s) { check(cuStreamSynchronize(s), "cuStreamSynchronize"); }

Stream::Stream() { check(cuStreamCreate(&s_, CU_STREAM_NON_BLOCKING), "cuStreamCreate"); }
Stream::~Stream() {
  if (s_) cuStreamDestroy(s_);
}

Event::Event() { check(cuEventCreate(&e_, CU_EVENT_DEFAULT), "cuEventCreate"); }
Event::~Event() {
  if (e_) cuEventDestroy(e_);
}

Module::Module(const std::string& cubin_path) {
  std::ifstream in(cubin_path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read cubin " + cubin_path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string image = ss.str();
  check(cuModuleLoadData(&mod_, image.data()), ("cuModuleLoadData(" + cubin_path + ")").c_str());
}

Module::Module(const void* image, const std::string& what) {
  check(cuModuleLoadData(&mod_, image), ("cuModuleLoadData(" + what + ")").c_str());
}

CUfunction Module::function(const char* name) const {
  CUfunction f = nullptr;
  check(cuModuleGetFunction(&f, mod_, name), (std::string("cuModuleGetFunction(") + name + ")").c_str());
  return f;
}

Module::~Module() {
  if (mod_) cuModuleUnload(mod_);
}

CUfunction Module::find(const std::string& symbol, const std::string& name, std::string* chosen) const {
  CUfunction f = nullptr;
  if (!symbol.empty() && cuModuleGetFunction(&f, mod_, symbol.c_str()) == CUDA_SUCCESS) {
    if (chosen) *chosen = symbol;
    return f;
  }
  unsigned int count = 0;
  check(cuModuleGetFunctionCount(&count, mod_), "cuModuleGetFunctionCount");
  std::vector<CUfunction> funcs(count);
  if (count) check(cuModuleEnumerateFunctions(funcs.data(), count, mod_), "cuModuleEnumerateFunctions");
  std::vector<std::pair<CUfunction, std::string>> matches;
  std::string all;
  const std::string wanted = name.empty() ? verifier::kernel_base_name(symbol) : name;
  for (CUfunction fn : funcs) {
    const char* n = nullptr;
    if (cuFuncGetName(&n, fn) != CUDA_SUCCESS || !n) continue;
    all += std::string(all.empty() ? "" : ", ") + verifier::demangle_symbol(n);
    if (verifier::kernel_base_name(n) == wanted) matches.emplace_back(fn, n);
  }
  if (matches.size() == 1) {
    if (chosen) *chosen = matches[0].second;
    return matches[0].first;
  }
  if (matches.empty())
    throw std::runtime_error("no kernel named `" + wanted + "` in the compiled cubin (kernels: " +
                             (all.empty() ? "none" : all) + ")");
  // Several overloads or instantiations: prefer the one whose demangled
  // name (up to the parameter list) matches the captured symbol's.
  std::string want_prefix = verifier::demangle_symbol(symbol);
  want_prefix = want_prefix.substr(0, want_prefix.find('('));
  for (auto& m : matches) {
    std::string d = verifier::demangle_symbol(m.second);
    if (d.substr(0, d.find('(')) == want_prefix) {
      if (chosen) *chosen = m.second;
      return m.first;
    }
  }
  throw std::runtime_error("several kernels named `" + wanted + "` in the cubin (" + all +
                           "); keep the captured signature so the symbol matches");
}

std::vector<ParamLayoutEntry> param_layout(CUfunction f) {
  std::vector<ParamLayoutEntry> out;
  for (std::size_t i = 0;; ++i) {
    std::size_t offset = 0, size = 0;
    CUresult r = cuFuncGetParamInfo(f, i, &offset, &size);
    if (r == CUDA_ERROR_INVALID_VALUE) break;  // past the last parameter
    check(r, "cuFuncGetParamInfo");
    out.push_back({offset, size});
    if (i > 4096) break;
  }
  return out;
}

verifier::FunctionInfo function_info(CUfunction f, const std::string& symbol) {
  verifier::FunctionInfo info;
  info.symbol = symbol;
  cuFuncGetAttribute(&info.num_regs, CU_FUNC_ATTRIBUTE_NUM_REGS, f);
  cuFuncGetAttribute(&info.static_shared_bytes, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f);
  cuFuncGetAttribute(&info.local_bytes, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, f);
  cuFuncGetAttribute(&info.max_threads_per_block, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f);
  return info;
}

}  // namespace warplens::replay
