// Verifier GPU case: the same kernel launched through the driver API three
// ways (cuLaunchKernel with kernelParams, cuLaunchKernel with the `extra`
// packed buffer, cuLaunchKernelEx), so capture is tested on callback ids 307
// and 652 and on both parameter-passing styles. Built with -lcuda.
//
// Every failing call says which one and why on stderr, and the exit code
// names the launch (2, 3, 4; 7: the packed layout disagrees with the
// driver's): the capture test shows both.
//
// A fourth launch repeats H200 run 2's mistake on purpose: the `extra`
// buffer's size given as sizeof of the packed struct (tail padding
// included). The program reports what the driver answered ("driver_launch:
// padded extra size ...") and carries on; the capture test checks that
// capture agrees (a refusal naming the driver's error, or a fourth launch).
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdio>
#include <vector>

namespace {
bool ok(CUresult r, const char* what) {
  if (r == CUDA_SUCCESS) return true;
  const char* name = "?";
  cuGetErrorName(r, &name);
  std::fprintf(stderr, "driver_launch: %s failed: %s\n", what, name);
  return false;
}

// The `extra` buffer: the parameters at the offsets the kernel expects
// (cuFuncGetParamInfo would say 0, 8, 16, 24 for this signature).
struct Packed {
  float a;
  const float* x;
  float* y;
  int n;
};
}  // namespace

__global__ void saxpy_driver(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

int main() {
  const int n = 1 << 16;
  std::vector<float> h(n, 1.0f);
  float *x, *y;
  if (cudaMalloc(&x, n * sizeof(float)) != cudaSuccess || cudaMalloc(&y, n * sizeof(float)) != cudaSuccess) return 1;
  cudaMemcpy(x, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(y, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaFunction_t fn;
  if (cudaGetFuncBySymbol(&fn, reinterpret_cast<const void*>(saxpy_driver)) != cudaSuccess) return 1;
  CUfunction f = reinterpret_cast<CUfunction>(fn);
  float a = 2.0f;
  int count = n;
  void* args[] = {&a, &x, &y, &count};
  const unsigned grid = (n + 255) / 256;
  if (!ok(cuLaunchKernel(f, grid, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr), "cuLaunchKernel(kernelParams)"))
    return 2;

  Packed packed = {3.0f, x, y, n};
  // The size the driver wants is where the last parameter ends (28 bytes),
  // not sizeof(Packed) (32, with tail padding): a padded size fails the
  // launch (run 2 on the H200 passed sizeof; see the fourth launch). The
  // driver's own layout, where it can say, must agree.
  std::size_t size = offsetof(Packed, n) + sizeof packed.n;
  std::size_t last_offset = 0, last_size = 0;
  if (cuFuncGetParamInfo(f, 3, &last_offset, &last_size) == CUDA_SUCCESS && last_offset + last_size != size) {
    std::fprintf(stderr, "driver_launch: the kernel's parameters end at byte %zu, the packed buffer's at %zu\n",
                 last_offset + last_size, size);
    return 7;
  }
  void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &packed, CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_END};
  if (!ok(cuLaunchKernel(f, grid, 1, 1, 256, 1, 1, 0, nullptr, nullptr, extra), "cuLaunchKernel(extra)")) return 3;

  CUlaunchConfig config = {};
  config.gridDimX = grid;
  config.gridDimY = 1;
  config.gridDimZ = 1;
  config.blockDimX = 256;
  config.blockDimY = 1;
  config.blockDimZ = 1;
  config.sharedMemBytes = 0;
  config.hStream = nullptr;
  config.attrs = nullptr;
  config.numAttrs = 0;
  a = 4.0f;
  if (!ok(cuLaunchKernelEx(&config, f, args, nullptr), "cuLaunchKernelEx")) return 4;
  if (cudaDeviceSynchronize() != cudaSuccess) return 5;
  cudaMemcpy(h.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost);
  std::printf("driver_launch y[0] = %f (expected 10)\n", h[0]);
  if (h[0] != 10.0f) return 6;

  // The padded size (sizeof(Packed) = 32): expected to be refused.
  std::size_t padded = sizeof packed;
  packed.a = 5.0f;
  void* padded_extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &packed, CU_LAUNCH_PARAM_BUFFER_SIZE, &padded,
                          CU_LAUNCH_PARAM_END};
  CUresult r = cuLaunchKernel(f, grid, 1, 1, 256, 1, 1, 0, nullptr, nullptr, padded_extra);
  if (r == CUDA_SUCCESS) {
    if (cudaDeviceSynchronize() != cudaSuccess) return 5;
    std::fprintf(stderr, "driver_launch: padded extra size %zu accepted\n", padded);
  } else {
    const char* name = "?";
    cuGetErrorName(r, &name);
    std::fprintf(stderr, "driver_launch: padded extra size %zu refused: %s\n", padded, name);
  }
  return 0;
}
