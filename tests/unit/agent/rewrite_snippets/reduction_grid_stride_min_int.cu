// test: kernel=min_key rewrite=reduction-grid-stride vector=4 blocks-per-sm=8
// expect: applies
// expect-output: int wl_acc = static_cast<int>(INT_MAX);
// expect-output: wl_acc = min(wl_acc, static_cast<int>(wl_e[0]));
// expect-launch: persistent=8
// An integer min padded with INT_MAX (the type's highest value) and combined
// with atomicMin: exact for any distribution of the keys over threads.
#include <cuda_runtime.h>
#include <climits>
__global__ void min_key(const int* keys, int* out, int n) {
  __shared__ int s[128];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) s[threadIdx.x] = keys[i];
  else s[threadIdx.x] = INT_MAX;
  __syncthreads();
  for (int k = 64; k > 0; k >>= 1) {
    if (threadIdx.x < k) s[threadIdx.x] = min(s[threadIdx.x], s[threadIdx.x + k]);
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicMin(out, s[0]);
}
void run(const int* keys, int* out, int n) { min_key<<<(n + 127) / 128, 128>>>(keys, out, n); }
