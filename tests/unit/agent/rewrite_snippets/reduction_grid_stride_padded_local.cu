// test: kernel=dot rewrite=reduction-grid-stride vector=1 blocks-per-sm=8
// expect: applies
// expect-output: double wl_acc = double(0);
// expect-output: wl_acc += (double)(a[i] * b[i]);
// expect-output: cache[tid] = wl_acc;
// expect-launch: persistent=8
// The padded load written in three statements (a local starting at the
// padding, set under the bound, stored into the reduced array), the way
// many dot products are: the same load as `(i < n) ? V : 0`, so each
// thread accumulates a grid-stride share before the block's tree.
#include <cuda_runtime.h>
#define BLOCK 256
__global__ void dot(const float* a, const float* b, double* result, long long n) {
  __shared__ double cache[BLOCK];
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  int tid = threadIdx.x;
  double v = 0.0;
  if (i < n) v = (double)(a[i] * b[i]);
  cache[tid] = v;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) cache[tid] += cache[tid + s];
    __syncthreads();
  }
  if (tid == 0) atomicAdd(result, cache[0]);
}
void run(const float* a, const float* b, double* result, long long n) {
  dot<<<(unsigned)((n + BLOCK - 1) / BLOCK), BLOCK>>>(a, b, result, n);
}
