// test: kernel=chunk_hist rewrite=privatize-atomics bins=256 blocks-per-sm=0
// expect: applies
// expect-output: [&]() {
// expect-output: wl_private_add<256>(wl_hist, bins, static_cast<long long>(keys[i] & 255), 1);
// expect-output: if (wl_hist[wl_slot] != static_cast<int>(0)) atomicAdd(&bins[wl_slot], wl_hist[wl_slot]);
// expect-no-output: wl_launch::grid
// Each thread takes a chunk: neither element-wise nor a grid-stride loop, and
// it returns early. The body runs in a lambda, so its return still reaches
// the block's flush; the launch is unchanged.
#include <cuda_runtime.h>
__global__ void chunk_hist(const int* keys, int* bins, int n, int per_thread) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int begin = t * per_thread;
  if (begin >= n) return;
  int end = min(begin + per_thread, n);
  for (int i = begin; i < end; ++i) atomicAdd(&bins[keys[i] & 255], 1);
}
void run(const int* k, int* b, int n) { chunk_hist<<<(n / 16 + 255) / 256, 256>>>(k, b, n, 16); }
