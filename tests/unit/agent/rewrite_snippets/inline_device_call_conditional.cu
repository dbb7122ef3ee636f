// test: kernel=k rewrite=inline-device-call
// expect: refuses is under ?:, && or ||
// The helper runs only when the condition holds (it reads x[i - 1], which
// does not exist at i == 0): running it first could read out of bounds.
#include <cuda_runtime.h>
__device__ float left(const float* x, int i) { return x[i - 1]; }
__global__ void k(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = i > 0 ? left(x, i) : 0.0f;
    y[i] = v;
  }
}
void run(const float* x, float* y, int n) { k<<<(n + 255) / 256, 256>>>(x, y, n); }
