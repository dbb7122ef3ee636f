// test: kernel=hist_modulo rewrite=privatize-atomics bins=1024 blocks-per-sm=4
// expect: applies
// expect-output: for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
// expect-output: wl_private_add<1024>(wl_hist, counts, static_cast<long long>(keys[i] % nbins), 1);
// expect-launch: persistent=4
// A grid-stride loop the user wrote; the number of bins is only known at
// run time, so bins beyond the block's copy still go to global memory.
#include <cuda_runtime.h>
__global__ void hist_modulo(const int* keys, int* counts, int n, int nbins) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    atomicAdd(counts + keys[i] % nbins, 1);
  }
}
void run(const int* k, int* c, int n, int nb) { hist_modulo<<<1024, 256>>>(k, c, n, nb); }
