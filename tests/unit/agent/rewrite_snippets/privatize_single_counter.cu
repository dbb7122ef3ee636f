// test: kernel=dot rewrite=privatize-atomics bins=1 blocks-per-sm=8
// expect: applies
// expect-output: float wl_sum = static_cast<float>(0);
// expect-output: (wl_sum += static_cast<float>(a[i] * b[i]));
// expect-output: if (wl_sum != static_cast<float>(0)) atomicAdd(&wl_hist[0], wl_sum);
// expect-output: atomicAdd(&result[wl_slot], wl_hist[wl_slot]);
// expect-no-output: wl_private_add
// expect-launch: persistent=8
// A dot product written the short way: every thread adds its product into
// one global float. Each thread sums in a register over its grid-stride
// elements, each block adds once.
#include <cuda_runtime.h>
__global__ void dot(const float* a, const float* b, float* result, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    atomicAdd(result, a[i] * b[i]);
  }
}
void run(const float* a, const float* b, float* r, int n) { dot<<<(n + 255) / 256, 256>>>(a, b, r, n); }
