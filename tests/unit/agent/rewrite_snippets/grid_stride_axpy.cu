// test: kernel=axpy rewrite=grid-stride blocks-per-sm=8
// expect: applies
// expect-output: wl_s += static_cast<long long>(gridDim.x) * blockDim.x
// expect-launch: persistent=8
#include <cuda_runtime.h>
__global__ void axpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += a * x[i];
}
void run(const float* x, float* y, int n) { axpy<<<(n + 255) / 256, 256>>>(2.0f, x, y, n); }
