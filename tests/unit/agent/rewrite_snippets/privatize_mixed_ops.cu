// test: kernel=stats rewrite=privatize-atomics
// expect: refuses is updated by different atomics
// A count and a maximum in one array: a per-block copy would need two
// identities for one array, so the rewrite leaves it.
#include <cuda_runtime.h>
__global__ void stats(const int* x, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    atomicAdd(&out[0], 1);
    atomicMax(&out[1], x[i]);
  }
}
void run(const int* x, int* o, int n) { stats<<<(n + 255) / 256, 256>>>(x, o, n); }
