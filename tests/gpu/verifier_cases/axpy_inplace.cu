// Verifier GPU case: the in-place y = a * x + y over 32M floats (128 MB per
// buffer, 256 MB of allocations, 512 MB of capture). y is read and written
// (in/out). Issue 13 measured the replay of this original timing out at
// 60 s; it must verify within the default timeout. The allocations are
// exactly n floats: a write past y's end leaves the allocation.
//
//   axpy_inplace [N]   N elements (default 32M)
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void axpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 1 << 25;
  if (n < 8) return 64;
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) {
    x[i] = 0.001f * static_cast<float>(i % 1000) - 0.5f;
    y[i] = 0.25f * static_cast<float>(i % 7);
  }
  float *dx, *dy;
  if (cudaMalloc(&dx, static_cast<size_t>(n) * sizeof(float)) || cudaMalloc(&dy, static_cast<size_t>(n) * sizeof(float)))
    return 1;
  cudaMemcpy(dx, x.data(), static_cast<size_t>(n) * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(dy, y.data(), static_cast<size_t>(n) * sizeof(float), cudaMemcpyHostToDevice);
  axpy<<<(n + 255) / 256, 256>>>(1.25f, dx, dy, n);
  if (cudaMemcpy(y.data(), dy, static_cast<size_t>(n) * sizeof(float), cudaMemcpyDeviceToHost) != cudaSuccess) return 1;
  double sum = 0;
  for (float v : y) sum += v;
  std::printf("axpy checksum %.3f\n", sum);
  return 0;
}
