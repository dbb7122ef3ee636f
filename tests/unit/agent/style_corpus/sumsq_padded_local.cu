// Sum of squares: the padded load in three statements, a shared tree, one
// atomic per block.
#include <cuda_runtime.h>
__global__ void sum_squares(const float* x, float* total, int n) {
  __shared__ float part[256];
  int gid = blockIdx.x * blockDim.x + threadIdx.x;
  int t = threadIdx.x;
  float v = 0.0f;
  if (gid < n) v = x[gid] * x[gid];
  part[t] = v;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) part[t] += part[t + s];
    __syncthreads();
  }
  if (t == 0) atomicAdd(total, part[0]);
}
void launch(const float* x, float* total, int n) { sum_squares<<<(n + 255) / 256, 256>>>(x, total, n); }
