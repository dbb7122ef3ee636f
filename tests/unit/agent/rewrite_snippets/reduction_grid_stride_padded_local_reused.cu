// test: kernel=dot rewrite=reduction-grid-stride vector=1 blocks-per-sm=8
// expect: refuses used outside its load
// The padded local is read again after the block's tree (each thread
// writes its own product too): it is not only the load, so a grid-stride
// accumulation would change what that store sees.
#include <cuda_runtime.h>
#define BLOCK 256
__global__ void dot(const float* a, const float* b, double* result, double* last, long long n) {
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
  if (tid == 0) atomicAdd(result, cache[0] + v * 0.0);
}
void run(const float* a, const float* b, double* result, double* last, long long n) {
  dot<<<(unsigned)((n + BLOCK - 1) / BLOCK), BLOCK>>>(a, b, result, last, n);
}
