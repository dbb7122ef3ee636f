// test: kernel=first_index rewrite=privatize-atomics bins=64 blocks-per-sm=4
// expect: applies
// expect-output: __shared__ unsigned int wl_hist[64];
// expect-output: wl_hist[wl_slot] = static_cast<unsigned int>(0xffffffffu);
// expect-output: wl_private_min<64>(wl_hist, first, static_cast<long long>(key[i] & 63u), (unsigned)i);
// expect-output: atomicMin(&block_copy[bin], static_cast<T>(v));
// expect-output: if (wl_hist[wl_slot] != static_cast<unsigned int>(0xffffffffu)) atomicMin(&first[wl_slot], wl_hist[wl_slot]);
// expect-launch: persistent=4
// expect-motivation: bins below 64
// The first position of each of 64 keys: a per-key minimum with unsigned
// atomicMin. A slot still at UINT_MAX (the identity) is not applied.
#include <cuda_runtime.h>
__global__ void first_index(const unsigned* key, unsigned* first, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicMin(&first[key[i] & 63u], (unsigned)i);
}
void run(const unsigned* k, unsigned* f, int n) { first_index<<<(n + 127) / 128, 128>>>(k, f, n); }
