// test: kernel=bias_relu rewrite=fuse-elementwise
// expect: applies
// expect-output: __global__ void mul_bias_relu_fused(const float * wl_a_x, const float * wl_a_y, float * wl_a_tmp, int wl_a_n, float bias, float* out, int n)
// expect-output: float v = (wl_a_x[(i)] * wl_a_y[(i)]) + bias;
// expect-output: mul_bias_relu_fused<<<blocks, threads>>>(x, y, tmp, n, bias, out, n);
// expect-no-output: bias_relu<<<
#include <cuda_runtime.h>
__global__ void mul(const float* x, const float* y, float* tmp, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) tmp[i] = x[i] * y[i];
}
__global__ void bias_relu(const float* t, float bias, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = t[i] + bias;
    out[i] = v > 0.0f ? v : 0.0f;
  }
}
void forward(const float* x, const float* y, float bias, float* out, int n) {
  float* tmp = nullptr;
  cudaMalloc(&tmp, n * sizeof(float));
  const int threads = 256, blocks = (n + threads - 1) / threads;
  mul<<<blocks, threads>>>(x, y, tmp, n);
  bias_relu<<<blocks, threads>>>(tmp, bias, out, n);
  cudaFree(tmp);
}
