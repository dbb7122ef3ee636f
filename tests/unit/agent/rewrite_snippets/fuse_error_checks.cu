// test: kernel=bias_tanh rewrite=fuse-elementwise
// expect: applies
// expect-output: add_bias_bias_tanh_fused<<<grid, block>>>(t1, bias, t2, n, cols, y, n);
// expect-output: /* bias_tanh runs in add_bias_bias_tanh_fused above */
// expect-output: CHECK(cudaGetLastError());
// A chain written with an error check after every launch, the way most
// programs are: the checks call only CUDA's error queries and C's printing
// and exit, so they stay where they are and the two launches still fuse.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#define CHECK(call)                                                                   \
  do {                                                                                \
    cudaError_t err_ = (call);                                                        \
    if (err_ != cudaSuccess) {                                                        \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_));  \
      exit(1);                                                                        \
    }                                                                                 \
  } while (0)
__global__ void add_bias(const float* t1, const float* bias, float* t2, int n, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) t2[i] = t1[i] + bias[i % cols];
}
__global__ void bias_tanh(const float* t2, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = tanhf(t2[i]);
}
void run(const float* t1, const float* bias, float* y, int n, int cols) {
  float* t2;
  CHECK(cudaMalloc(&t2, n * sizeof(float)));
  int block = 256, grid = (n + block - 1) / block;
  add_bias<<<grid, block>>>(t1, bias, t2, n, cols);
  CHECK(cudaGetLastError());
  bias_tanh<<<grid, block>>>(t2, y, n);
  CHECK(cudaGetLastError());
  CHECK(cudaFree(t2));
}
