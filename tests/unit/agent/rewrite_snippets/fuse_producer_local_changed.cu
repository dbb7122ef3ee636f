// test: kernel=tanh_kernel rewrite=fuse-elementwise
// expect: refuses does more than declare locals and make one store
// A local the producer changes after declaring it is not a value that can
// be inlined.
#include <cuda_runtime.h>
__global__ void add_bias_kernel(const float* t1, const float* bias, float* t2, int n, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int col = i % cols;
    col = cols - 1 - col;
    t2[i] = t1[i] + bias[col];
  }
}
__global__ void tanh_kernel(const float* t2, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = tanhf(t2[i]);
}
void run(const float* t1, const float* bias, float* y, int n, int cols) {
  float* t2;
  cudaMalloc(&t2, n * sizeof(float));
  add_bias_kernel<<<(n + 255) / 256, 256>>>(t1, bias, t2, n, cols);
  tanh_kernel<<<(n + 255) / 256, 256>>>(t2, y, n);
  cudaFree(t2);
}
