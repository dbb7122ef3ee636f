// Verifier GPU case: the same kernel launched through the driver API three
// ways (cuLaunchKernel with kernelParams, cuLaunchKernel with the `extra`
// packed buffer, cuLaunchKernelEx), so capture is tested on callback ids 307
// and 652 and on both parameter-passing styles. Built with -lcuda.
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

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
  if (cuLaunchKernel(f, grid, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr) != CUDA_SUCCESS) return 2;

  struct {
    float a;
    const float* x;
    float* y;
    int n;
  } packed = {3.0f, x, y, n};
  std::size_t size = sizeof packed;
  void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &packed, CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_END};
  if (cuLaunchKernel(f, grid, 1, 1, 256, 1, 1, 0, nullptr, nullptr, extra) != CUDA_SUCCESS) return 3;

  CUlaunchConfig config = {};
  config.gridDimX = grid;
  config.gridDimY = 1;
  config.gridDimZ = 1;
  config.blockDimX = 256;
  config.blockDimY = 1;
  config.blockDimZ = 1;
  a = 4.0f;
  if (cuLaunchKernelEx(&config, f, args, nullptr) != CUDA_SUCCESS) return 4;
  if (cudaDeviceSynchronize() != cudaSuccess) return 5;
  cudaMemcpy(h.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost);
  std::printf("driver_launch y[0] = %f (expected 10)\n", h[0]);
  return h[0] == 10.0f ? 0 : 6;
}
