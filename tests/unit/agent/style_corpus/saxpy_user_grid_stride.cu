// saxpy as a hand-written grid-stride loop on a fixed grid.
#include <cuda_runtime.h>
__global__ void saxpy_gs(int n, float a, const float* x, float* y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) y[i] = a * x[i] + y[i];
}
void saxpy(int n, float a, const float* x, float* y) { saxpy_gs<<<4096, 256>>>(n, a, x, y); }
