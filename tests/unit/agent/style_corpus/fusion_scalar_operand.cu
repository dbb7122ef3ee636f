// Scale into a temporary by a scalar read from memory, then add: scalars and a uniform load.
#include <cuda_runtime.h>
__global__ void scale(const float* x, const float* alpha, float* t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) t[i] = alpha[0] * x[i];
}
__global__ void add(const float* t, const float* y, float* out, float beta, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = t[i] + beta * y[i];
}
void axpby(const float* x, const float* alpha, const float* y, float* out, float beta, int n) {
  float* t = nullptr;
  cudaMalloc(&t, n * sizeof(float));
  const int threads = 256, blocks = (n + threads - 1) / threads;
  scale<<<blocks, threads>>>(x, alpha, t, n);
  add<<<blocks, threads>>>(t, y, out, beta, n);
  cudaFree(t);
}
