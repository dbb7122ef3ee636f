// test: kernel=gelu_erf rewrite=fuse-elementwise
// expect: refuses no launch of this kernel is immediately followed or preceded
// A "checking" function between the launches that also copies the
// temporary back to the host (it names a variable outside its own): not an
// error check, so the launches are not fused.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
static float g_probe;
static void check_and_probe(cudaError_t e, const float* t) {
  if (e != cudaSuccess) exit(1);
  cudaMemcpy(&g_probe, t, sizeof(float), cudaMemcpyDeviceToHost);
}
__global__ void add_bias(const float* x, const float* bias, float* t, int n, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) t[i] = x[i] + bias[i % cols];
}
__global__ void gelu_erf(const float* t, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 0.5f * t[i] * (1.0f + erff(t[i] * 0.70710678f));
}
void run(const float* x, const float* bias, float* y, int n, int cols) {
  float* t;
  cudaMalloc(&t, n * sizeof(float));
  add_bias<<<(n + 255) / 256, 256>>>(x, bias, t, n, cols);
  check_and_probe(cudaGetLastError(), t);
  gelu_erf<<<(n + 255) / 256, 256>>>(t, y, n);
  cudaFree(t);
}
