// test: kernel=bias_relu rewrite=fuse-elementwise
// expect: applies
// expect-output: c[i] = fmaxf((wl_a_a[(i)] * wl_a_b[(i)]) + bias[i % cols], 0.f);
// expect-output: mul_bias_relu_fused<<<blocks, 256>>>(a, b, t, n, bias, c, n, cols);
// Bias + activation after a product: the bias is a broadcast operand
// (`bias[i % cols]`), read at an element other than [i].
#include <cuda_runtime.h>
__global__ void mul(const float* a, const float* b, float* t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) t[i] = a[i] * b[i];
}
__global__ void bias_relu(const float* t, const float* bias, float* c, int n, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = fmaxf(t[i] + bias[i % cols], 0.f);
}
void forward(const float* a, const float* b, const float* bias, float* c, int rows, int cols) {
  const int n = rows * cols, blocks = (n + 255) / 256;
  float* t;
  cudaMalloc(&t, n * sizeof(float));
  mul<<<blocks, 256>>>(a, b, t, n);
  bias_relu<<<blocks, 256>>>(t, bias, c, n, cols);
  cudaFree(t);
}
