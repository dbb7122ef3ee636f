// test: kernel=add_bias rewrite=fuse-elementwise
// expect: applies
// expect-output: out[i] = (wl_a_x[(i)] * wl_a_y[(i)]) + bias[0];
// expect-output: mul_add_bias_fused<<<grid, block>>>(x, y, tmp, n, out, bias, n);
// Two grid-stride loops written by the user, the second reading a scalar
// parameter through memory (`bias[0]`, the same for every thread).
#include <cuda_runtime.h>
__global__ void mul(const float* x, const float* y, float* tmp, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) tmp[i] = x[i] * y[i];
}
__global__ void add_bias(const float* t, float* out, const float* bias, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) out[i] = t[i] + bias[0];
}
void forward(const float* x, const float* y, const float* bias, float* out, int n) {
  float* tmp;
  cudaMalloc(&tmp, n * sizeof(float));
  const int block = 256, grid = 2048;
  mul<<<grid, block>>>(x, y, tmp, n);
  add_bias<<<grid, block>>>(tmp, out, bias, n);
  cudaFree(tmp);
}
