// test: kernel=fmax_into rewrite=privatize-atomics
// expect: refuses no atomicAdd (or atomicMax
// CUDA has no atomicMax on float; a user's own helper is not recognised as
// one (its effect is not proven), so nothing is privatised.
#include <cuda_runtime.h>
__device__ void atomic_max_float(float* addr, float v) {
  int* a = (int*)addr;
  int old = *a, assumed;
  do {
    assumed = old;
    old = atomicCAS(a, assumed, __float_as_int(fmaxf(v, __int_as_float(assumed))));
  } while (assumed != old);
}
__global__ void fmax_into(const float* x, float* m, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomic_max_float(m, x[i]);
}
void run(const float* x, float* m, int n) { fmax_into<<<(n + 255) / 256, 256>>>(x, m, n); }
