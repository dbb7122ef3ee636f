// test: kernel=max_abs rewrite=privatize-atomics bins=1 blocks-per-sm=8
// expect: applies
// expect-output: int wl_max = static_cast<int>((-2147483647 - 1));
// expect-output: (wl_max = ::max(wl_max, static_cast<int>(v < 0 ? -v : v)));
// expect-output: if (wl_max != static_cast<int>((-2147483647 - 1))) atomicMax(&wl_hist[0], wl_max);
// expect-output: atomicMax(&result[wl_slot], wl_hist[wl_slot]);
// expect-launch: persistent=8
// expect-motivation: global atomicMax(s) into `result`
// The largest magnitude of an int array, one global atomicMax per element
// into one counter: each thread keeps its maximum in a register, each block
// applies one atomicMax. The identity of max on int is INT_MIN.
#include <cuda_runtime.h>
__global__ void max_abs(const int* __restrict__ x, int* result, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int v = x[i];
  atomicMax(result, v < 0 ? -v : v);
}
void run(const int* x, int* r, int n) { max_abs<<<(n + 255) / 256, 256>>>(x, r, n); }
