// test: kernel=bias_tanh rewrite=fuse-elementwise
// expect: refuses no launch of this kernel is immediately followed or preceded
// A statement between the launches that is not an error check (it reads
// `t2` on the host, or could change what the second launch reads): the
// launches are not fused.
#include <cuda_runtime.h>
__global__ void add_bias(const float* t1, const float* bias, float* t2, int n, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) t2[i] = t1[i] + bias[i % cols];
}
__global__ void bias_tanh(const float* t2, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = tanhf(t2[i]);
}
void run(const float* t1, const float* bias, float* y, float* host, int n, int cols) {
  float* t2;
  cudaMalloc(&t2, n * sizeof(float));
  add_bias<<<(n + 255) / 256, 256>>>(t1, bias, t2, n, cols);
  cudaMemcpy(host, t2, sizeof(float), cudaMemcpyDeviceToHost);
  bias_tanh<<<(n + 255) / 256, 256>>>(t2, y, n);
  cudaFree(t2);
}
