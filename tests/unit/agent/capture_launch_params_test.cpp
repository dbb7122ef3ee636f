// Launch capture's reading of a driver launch (profiler/inject/
// capture_launch_params.cpp) on hand-made CUPTI callback data, without a GPU:
// cuLaunchKernel with kernelParams and with the packed `extra` buffer
// (CU_LAUNCH_PARAM_BUFFER_POINTER / CU_LAUNCH_PARAM_BUFFER_SIZE),
// cuLaunchKernelEx (configuration and attributes), the _ptsz variants, a
// CUkernel handle, and every way the parameters can be unreadable.
//
// The driver entry points that code calls are defined below as a TEST
// DOUBLE (this binary links no libcuda): a function handle is a FakeFunction
// whose parameter layout cuFuncGetParamInfo reports, as the real driver
// reports the kernel image's.
//
// The GPU suite (tests/gpu/verifier_gpu_capture_test.cpp, driver_launch.cu)
// runs the same three launch styles through CUPTI on a real GPU.
#include <doctest/doctest.h>

#include <cuda.h>
#include <cupti.h>

#include <cstddef>
#include <cstring>
#include <vector>

#include "profiler/inject/capture_launch_params.h"

using namespace warplens;
using namespace warplens::inject;

namespace {

struct FakeFunction {
  std::vector<std::pair<std::size_t, std::size_t>> params;  // offset, size
  bool is_kernel_handle = false;  // a CUkernel: function queries fail on it
  FakeFunction* resolves_to = nullptr;
};

// saxpy_driver(float a, const float* x, float* y, int n): parameters at
// 0, 8, 16, 24; they end at byte 28 (a packed struct of them is 32 long).
FakeFunction g_saxpy{{{0, 4}, {8, 8}, {16, 8}, {24, 4}}};
FakeFunction g_no_params{{}};
FakeFunction g_saxpy_kernel{{}, true, &g_saxpy};

FakeFunction* fake(CUfunction f) { return reinterpret_cast<FakeFunction*>(f); }
CUfunction handle(FakeFunction& f) { return reinterpret_cast<CUfunction>(&f); }

}  // namespace

// The TEST DOUBLE's driver entry points.
extern "C" {
CUresult cuFuncGetParamInfo(CUfunction f, size_t index, size_t* offset, size_t* size) {
  if (fake(f)->is_kernel_handle) return CUDA_ERROR_INVALID_HANDLE;
  const auto& p = fake(f)->params;
  if (index >= p.size()) return CUDA_ERROR_INVALID_VALUE;
  *offset = p[index].first;
  *size = p[index].second;
  return CUDA_SUCCESS;
}
CUresult cuKernelGetParamInfo(CUkernel, size_t, size_t*, size_t*) { return CUDA_ERROR_INVALID_HANDLE; }
CUresult cuFuncGetAttribute(int* value, CUfunction_attribute, CUfunction f) {
  if (fake(f)->is_kernel_handle) return CUDA_ERROR_INVALID_HANDLE;
  *value = 0;
  return CUDA_SUCCESS;
}
CUresult cuKernelGetFunction(CUfunction* out, CUkernel k) {
  FakeFunction* f = reinterpret_cast<FakeFunction*>(k);
  if (!f->resolves_to) return CUDA_ERROR_INVALID_HANDLE;
  *out = handle(*f->resolves_to);
  return CUDA_SUCCESS;
}
CUresult cuGetErrorName(CUresult r, const char** name) {
  *name = r == CUDA_ERROR_INVALID_HANDLE ? "CUDA_ERROR_INVALID_HANDLE" : "CUDA_ERROR_UNKNOWN";
  return CUDA_SUCCESS;
}
}  // extern "C"

namespace {

// What a program passes: the values, and a packed copy for `extra`.
struct Packed {
  float a;
  const float* x;
  float* y;
  int n;
};
constexpr std::size_t kParamsEnd = offsetof(Packed, n) + sizeof(int);  // 28

struct Args {
  float a = 2.5f;
  const float* x = reinterpret_cast<const float*>(0x7f0000001000ULL);
  float* y = reinterpret_cast<float*>(0x7f0000002000ULL);
  int n = 65536;
  void* kernel_params[4] = {&a, &x, &y, &n};
  Packed packed{a, x, y, n};
};

// A driver callback at API entry for `cbid` with its functionParams.
LaunchParams read(CUpti_CallbackId cbid, const void* function_params) {
  CUpti_CallbackData data{};
  data.callbackSite = CUPTI_API_ENTER;
  data.functionParams = function_params;
  LaunchCallback cb;
  cb.cbid = cbid;
  cb.data = &data;
  return read_launch_params(cb);
}

cuLaunchKernel_params classic(CUfunction f, void** kernel_params, void** extra) {
  cuLaunchKernel_params p{};
  p.f = f;
  p.gridDimX = 256;
  p.gridDimY = 2;
  p.gridDimZ = 1;
  p.blockDimX = 128;
  p.blockDimY = 1;
  p.blockDimZ = 1;
  p.sharedMemBytes = 512;
  p.hStream = reinterpret_cast<CUstream>(0x1234);
  p.kernelParams = kernel_params;
  p.extra = extra;
  return p;
}

template <class T>
T at(const LaunchParams& lp, std::size_t offset) {
  T v{};
  REQUIRE(lp.buffer.size() >= offset + sizeof v);
  std::memcpy(&v, lp.buffer.data() + offset, sizeof v);
  return v;
}

// The buffer the kernel receives: every parameter at its offset, exactly
// as long as the parameters (28 bytes, not the packed struct's 32).
void check_saxpy_buffer(const LaunchParams& lp, const Args& args) {
  REQUIRE(lp.ok);
  CHECK(lp.error.empty());
  REQUIRE(lp.params.size() == 4);
  CHECK(lp.params[3].offset == 24);
  CHECK(lp.buffer.size() == kParamsEnd);
  CHECK(at<float>(lp, 0) == args.a);
  CHECK(at<const float*>(lp, 8) == args.x);
  CHECK(at<float*>(lp, 16) == args.y);
  CHECK(at<int>(lp, 24) == args.n);
}

}  // namespace

TEST_CASE("capture reads cuLaunchKernel with kernelParams: geometry and every parameter at its offset") {
  Args args;
  auto p = classic(handle(g_saxpy), args.kernel_params, nullptr);
  LaunchParams lp = read(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &p);
  check_saxpy_buffer(lp, args);
  CHECK(lp.api == "cuLaunchKernel");
  CHECK(lp.grid == std::array<std::uint32_t, 3>{256, 2, 1});
  CHECK(lp.block == std::array<std::uint32_t, 3>{128, 1, 1});
  CHECK(lp.dynamic_shared_bytes == 512);
  CHECK(lp.stream == reinterpret_cast<CUstream>(0x1234));
  CHECK_FALSE(lp.cooperative);
  CHECK(lp.cluster[0] == 0);
}

TEST_CASE("capture reads cuLaunchKernel with the packed `extra` buffer") {
  Args args;
  std::size_t size = kParamsEnd;
  SUBCASE("pointer, then size (the documented order)") {
    void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &args.packed, CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
                     CU_LAUNCH_PARAM_END};
    auto p = classic(handle(g_saxpy), nullptr, extra);
    check_saxpy_buffer(read(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &p), args);
  }
  SUBCASE("size, then pointer") {
    void* extra[] = {CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_BUFFER_POINTER, &args.packed,
                     CU_LAUNCH_PARAM_END};
    auto p = classic(handle(g_saxpy), nullptr, extra);
    check_saxpy_buffer(read(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &p), args);
  }
  SUBCASE("a size with the struct's tail padding: read, the driver decides") {
    // sizeof(Packed) is 32. The real driver refuses such a launch (the
    // H200 run 2 failure: its program passed sizeof); capture reads the 28
    // bytes the kernel has and, if the call fails, refuses at the exit.
    size = sizeof(Packed);
    void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &args.packed, CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
                     CU_LAUNCH_PARAM_END};
    auto p = classic(handle(g_saxpy), nullptr, extra);
    check_saxpy_buffer(read(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &p), args);
  }
}

TEST_CASE("capture refuses an `extra` buffer it cannot read, saying why") {
  Args args;
  std::size_t size = kParamsEnd;
  auto refused = [](void** extra) {
    auto p = classic(handle(g_saxpy), nullptr, extra);
    LaunchParams lp = read(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &p);
    CHECK_FALSE(lp.ok);
    CHECK(lp.error.find("`extra`") != std::string::npos);
    return lp.error;
  };
  SUBCASE("shorter than the parameters") {
    size = 20;
    void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &args.packed, CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
                     CU_LAUNCH_PARAM_END};
    std::string e = refused(extra);
    CHECK(e.find("20 bytes") != std::string::npos);
    CHECK(e.find("28") != std::string::npos);
  }
  SUBCASE("no size (the driver ignores the pointer then)") {
    void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &args.packed, CU_LAUNCH_PARAM_END};
    refused(extra);
  }
  SUBCASE("no pointer") {
    void* extra[] = {CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_END};
    refused(extra);
  }
  SUBCASE("an entry warplens does not know") {
    void* extra[] = {reinterpret_cast<void*>(0x77), &size, CU_LAUNCH_PARAM_BUFFER_POINTER, &args.packed,
                     CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_END};
    refused(extra);
  }
}

TEST_CASE("capture refuses a launch whose parameters are missing") {
  Args args;
  SUBCASE("neither kernelParams nor extra") {
    auto p = classic(handle(g_saxpy), nullptr, nullptr);
    LaunchParams lp = read(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &p);
    CHECK_FALSE(lp.ok);
    CHECK(lp.error == "the launch passes no parameters but the kernel takes 4");
  }
  SUBCASE("a null kernelParams entry") {
    args.kernel_params[2] = nullptr;
    auto p = classic(handle(g_saxpy), args.kernel_params, nullptr);
    LaunchParams lp = read(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &p);
    CHECK_FALSE(lp.ok);
    CHECK(lp.error == "kernelParams[2] is null");
  }
  SUBCASE("a kernel without parameters needs none") {
    auto p = classic(handle(g_no_params), nullptr, nullptr);
    LaunchParams lp = read(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &p);
    CHECK(lp.ok);
    CHECK(lp.params.empty());
    CHECK(lp.buffer.empty());
  }
}

TEST_CASE("capture reads cuLaunchKernelEx: the configuration, its attributes, both parameter styles") {
  Args args;
  CUlaunchAttribute attrs[2] = {};
  attrs[0].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  attrs[0].value.clusterDim.x = 2;
  attrs[0].value.clusterDim.y = 1;
  attrs[0].value.clusterDim.z = 1;
  attrs[1].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
  attrs[1].value.cooperative = 1;
  CUlaunchConfig config{};
  config.gridDimX = 64;
  config.gridDimY = 1;
  config.gridDimZ = 3;
  config.blockDimX = 256;
  config.blockDimY = 1;
  config.blockDimZ = 1;
  config.sharedMemBytes = 4096;
  config.hStream = reinterpret_cast<CUstream>(0x5678);
  config.attrs = attrs;
  config.numAttrs = 2;
  std::size_t size = kParamsEnd;
  void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &args.packed, CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
                   CU_LAUNCH_PARAM_END};
  cuLaunchKernelEx_params p{&config, handle(g_saxpy), args.kernel_params, nullptr};
  SUBCASE("kernelParams") {}
  SUBCASE("extra") {
    p.kernelParams = nullptr;
    p.extra = extra;
  }
  LaunchParams lp = read(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, &p);
  check_saxpy_buffer(lp, args);
  CHECK(lp.api == "cuLaunchKernelEx");
  CHECK(lp.grid == std::array<std::uint32_t, 3>{64, 1, 3});
  CHECK(lp.block == std::array<std::uint32_t, 3>{256, 1, 1});
  CHECK(lp.dynamic_shared_bytes == 4096);
  CHECK(lp.stream == reinterpret_cast<CUstream>(0x5678));
  CHECK(lp.cluster == std::array<std::uint32_t, 3>{2, 1, 1});
  CHECK(lp.cooperative);
}

TEST_CASE("capture reads cuLaunchKernelEx without attributes (numAttrs 0, attrs null)") {
  Args args;
  CUlaunchConfig config{};
  config.gridDimX = config.gridDimY = config.gridDimZ = 1;
  config.blockDimX = config.blockDimY = config.blockDimZ = 32;
  cuLaunchKernelEx_params p{&config, handle(g_saxpy), args.kernel_params, nullptr};
  LaunchParams lp = read(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, &p);
  check_saxpy_buffer(lp, args);
  CHECK(lp.block == std::array<std::uint32_t, 3>{32, 32, 32});
  CHECK(lp.cluster[0] == 0);
  CHECK_FALSE(lp.cooperative);
}

TEST_CASE("capture reads the per-thread-stream variants and cooperative launches") {
  Args args;
  SUBCASE("cuLaunchKernel_ptsz") {
    auto c = classic(handle(g_saxpy), args.kernel_params, nullptr);
    cuLaunchKernel_ptsz_params p{};
    static_assert(sizeof p == sizeof c);
    std::memcpy(&p, &c, sizeof p);
    LaunchParams lp = read(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz, &p);
    check_saxpy_buffer(lp, args);
    CHECK(lp.api == "cuLaunchKernel_ptsz");
  }
  SUBCASE("cuLaunchKernelEx_ptsz") {
    CUlaunchConfig config{};
    config.gridDimX = config.gridDimY = config.gridDimZ = 1;
    config.blockDimX = config.blockDimY = config.blockDimZ = 1;
    cuLaunchKernelEx_ptsz_params p{&config, handle(g_saxpy), args.kernel_params, nullptr};
    LaunchParams lp = read(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz, &p);
    check_saxpy_buffer(lp, args);
    CHECK(lp.api == "cuLaunchKernelEx_ptsz");
  }
  SUBCASE("cuLaunchCooperativeKernel") {
    cuLaunchCooperativeKernel_params p{};
    p.f = handle(g_saxpy);
    p.gridDimX = p.gridDimY = p.gridDimZ = 1;
    p.blockDimX = p.blockDimY = p.blockDimZ = 1;
    p.kernelParams = args.kernel_params;
    LaunchParams lp = read(CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel, &p);
    check_saxpy_buffer(lp, args);
    CHECK(lp.cooperative);
  }
}

TEST_CASE("capture resolves a CUkernel handle to the context's function") {
  Args args;
  auto p = classic(handle(g_saxpy_kernel), args.kernel_params, nullptr);
  LaunchParams lp = read(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &p);
  check_saxpy_buffer(lp, args);
  CHECK(lp.function == handle(g_saxpy));
}

TEST_CASE("capture says why it cannot read a launch it does not support or cannot query") {
  Args args;
  SUBCASE("an older launch API") {
    int dummy = 0;
    LaunchParams lp = read(CUPTI_DRIVER_TRACE_CBID_cuLaunchGrid, &dummy);
    CHECK_FALSE(lp.ok);
    CHECK(lp.error.find("is not supported for capture") != std::string::npos);
  }
  SUBCASE("no functionParams") {
    LaunchParams lp = read(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, nullptr);
    CHECK_FALSE(lp.ok);
    CHECK(lp.error == "the launch callback carries no parameters");
  }
  SUBCASE("a handle the driver does not know") {
    FakeFunction unknown{{}, true, nullptr};
    auto p = classic(handle(unknown), args.kernel_params, nullptr);
    LaunchParams lp = read(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &p);
    CHECK_FALSE(lp.ok);
    CHECK(lp.error == "cannot read the parameter layout: CUDA_ERROR_INVALID_HANDLE");
  }
}
