// warplens-launch: kernel=saxpy_inplace block=same swap-xy=0 scale=1/1,1/1,1/1 persistent=8
// Launch-change case: grid-stride(blocks-per-sm=8) of saxpy.cu: correct for
// any grid, launched with at most 8 blocks per multiprocessor.
#include <cstdio>

__global__ void saxpy_inplace(float a, const float* x, float* y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] = a * x[i] + y[i];
}
