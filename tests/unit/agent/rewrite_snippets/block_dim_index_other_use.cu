// test: kernel=shift rewrite=block-dim-index
// expect: refuses the kernel reads thread/block coordinates outside a global index variable
// threadIdx is read outside the index: the block's shape matters to it.
#include <cuda_runtime.h>
#define TPB 64
__global__ void shift(float* x, int n) {
  int i = blockIdx.x * TPB + threadIdx.x;
  if (i < n && threadIdx.x > 0) x[i] = x[i - 1];
}
void run(float* x, int n) { shift<<<(n + TPB - 1) / TPB, TPB>>>(x, n); }
