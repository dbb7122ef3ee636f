// test: kernel=saxpy rewrite=restrict-const
// expect: applies
// expect-output: const float* __restrict__ x
// expect-output: float* __restrict__ y
#include <cuda_runtime.h>
__global__ void saxpy(const float* x, float* y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
void run(const float* d_x, float* d_y, int n) { saxpy<<<(n + 255) / 256, 256>>>(d_x, d_y, 2.0f, n); }
