// test: kernel=count_positive rewrite=privatize-atomics bins=1 blocks-per-sm=8
// expect: refuses a launch is written inside a macro
// A launch written by a macro (`LAUNCH(k, n)` expands to the whole
// `k<<<...>>>(...)`): its text is the macro's, so it cannot be rewritten.
#include <cuda_runtime.h>
#define LAUNCH(k, n, ...) k<<<((n) + 255) / 256, 256>>>(__VA_ARGS__)
__global__ void count_positive(const float* d, int n, int* count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    if (d[i] > 0.f) atomicAdd(count, 1);
  }
}
void run(const float* d, int n, int* c) { LAUNCH(count_positive, n, d, n, c); }
