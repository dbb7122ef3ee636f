// test: kernel=min_then_max rewrite=reduction-grid-stride
// expect: refuses combined with atomicMin
// A block min combined across blocks with atomicMax: the max of the blocks'
// minima depends on how elements are split into blocks.
#include <cuda_runtime.h>
#include <climits>
__global__ void min_then_max(const int* keys, int* out, int n) {
  __shared__ int s[128];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? keys[i] : INT_MAX;
  __syncthreads();
  for (int k = 64; k > 0; k >>= 1) {
    if (threadIdx.x < k) s[threadIdx.x] = min(s[threadIdx.x], s[threadIdx.x + k]);
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicMax(out, s[0]);
}
void run(const int* keys, int* out, int n) { min_then_max<<<(n + 127) / 128, 128>>>(keys, out, n); }
