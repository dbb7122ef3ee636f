// test: kernel=scale rewrite=block-dim-index
// expect: refuses a launch's block is 256 along x, not the index's 128
// The macro says 128 but one launch uses 256 threads: the index skips
// elements there, and blockDim would change what the kernel computes.
#include <cuda_runtime.h>
#define BLOCK_SIZE 128
__global__ void scale(float* x, int n) {
  int i = blockIdx.x * BLOCK_SIZE + threadIdx.x;
  if (i < n) x[i] *= 2.0f;
}
void run(float* x, int n) {
  scale<<<(n + BLOCK_SIZE - 1) / BLOCK_SIZE, BLOCK_SIZE>>>(x, n);
  scale<<<(n + 255) / 256, 256>>>(x, n);
}
