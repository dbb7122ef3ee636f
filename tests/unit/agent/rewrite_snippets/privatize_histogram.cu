// test: kernel=histogram rewrite=privatize-atomics bins=256 blocks-per-sm=8
// expect: applies
// expect-output: __shared__ unsigned int wl_hist[256];
// expect-output: wl_private_add<256>(wl_hist, bins, static_cast<long long>(data[i]), 1u);
// expect-output: if (wl_hist[wl_slot] != static_cast<unsigned int>(0)) atomicAdd(&bins[wl_slot], wl_hist[wl_slot]);
// expect-launch: persistent=8
// expect-motivation: bins below 256
// A 256-bin histogram with one global atomic per element. The bins are
// unsigned chars, so a per-block copy of 256 bins takes every add.
#include <cuda_runtime.h>
__global__ void histogram(const unsigned char* data, unsigned int* bins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&bins[data[i]], 1u);
}
void run(const unsigned char* d, unsigned int* bins, int n) { histogram<<<(n + 255) / 256, 256>>>(d, bins, n); }
