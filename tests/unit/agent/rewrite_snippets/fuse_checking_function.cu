// test: kernel=gelu_erf rewrite=fuse-elementwise
// expect: applies
// expect-output: add_bias_gelu_erf_fused<<<grid, block>>>(x, bias, t, n, cols, y, n);
// expect-output: /* gelu_erf runs in add_bias_gelu_erf_fused above */
// expect-output: check(cudaGetLastError(), "add_bias launch");
// The program's own checking function between the launches (`check(e,
// what)`, a static inline host function that prints and exits on an
// error): it reads nothing the kernels use, so the launches fuse and the
// check stays after the fused launch.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
static inline void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    exit(1);
  }
}
__global__ void add_bias(const float* x, const float* bias, float* t, int n, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) t[i] = x[i] + bias[i % cols];
}
__global__ void gelu_erf(const float* t, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = t[i];
    y[i] = 0.5f * v * (1.0f + erff(v * 0.70710678f));
  }
}
void run(const float* x, const float* bias, float* y, int n, int cols) {
  float* t;
  check(cudaMalloc(&t, n * sizeof(float)), "cudaMalloc t");
  int block = 256;
  int grid = (n + block - 1) / block;
  add_bias<<<grid, block>>>(x, bias, t, n, cols);
  check(cudaGetLastError(), "add_bias launch");
  gelu_erf<<<grid, block>>>(t, y, n);
  check(cudaGetLastError(), "gelu_erf launch");
  check(cudaFree(t), "cudaFree t");
}
