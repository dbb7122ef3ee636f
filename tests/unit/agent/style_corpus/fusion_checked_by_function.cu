// Bias then exp, each launch checked by the program's own function.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
static void die_on(cudaError_t e, const char* where) {
  if (e != cudaSuccess) {
    fprintf(stderr, "%s: %s\n", where, cudaGetErrorString(e));
    exit(1);
  }
}
__global__ void add_shift(const float* x, float* t, float shift, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) t[i] = x[i] - shift;
}
__global__ void exp_kernel(const float* t, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = expf(t[i]);
}
void launch(const float* x, float* y, float shift, int n) {
  float* t;
  die_on(cudaMalloc(&t, n * sizeof(float)), "alloc");
  add_shift<<<(n + 127) / 128, 128>>>(x, t, shift, n);
  die_on(cudaGetLastError(), "add_shift");
  exp_kernel<<<(n + 127) / 128, 128>>>(t, y, n);
  die_on(cudaGetLastError(), "exp_kernel");
  die_on(cudaFree(t), "free");
}
