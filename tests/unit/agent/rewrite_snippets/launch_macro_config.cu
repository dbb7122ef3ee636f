// test: kernel=count_positive rewrite=privatize-atomics bins=1 blocks-per-sm=8
// expect: applies
// expect-output: count_positive<<<wl_launch::grid(dim3((N + THREADS - 1) / THREADS), dim3(THREADS), dim3(THREADS), false, 1, 1, 1, 1, 1, 1, 8), THREADS>>>(d, N, c);
// expect-output: int wl_sum = static_cast<int>(0);
// A launch whose grid and block are spelled with macros (the size and the
// block as #defines): the launch is rewritten with the macros' spelling
// kept, and the kernel's one global counter is privatised.
#include <cuda_runtime.h>
#define N (1 << 20)
#define THREADS 256
__global__ void count_positive(const float* d, int n, int* count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    if (d[i] > 0.f) atomicAdd(count, 1);
  }
}
void run(const float* d, int* c) { count_positive<<<(N + THREADS - 1) / THREADS, THREADS>>>(d, N, c); }
