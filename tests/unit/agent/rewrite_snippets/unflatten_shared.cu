// test: kernel=rows_shared rewrite=unflatten-index
// expect: refuses shared memory
// Threads share a block's shared memory: regrouping them into 32x8 blocks
// would change which threads see each other's values.
#include <cuda_runtime.h>
__global__ void rows_shared(const float* x, float* y, int M, int N) {
  __shared__ float buf[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < M * N) {
    int c = i % N;
    buf[i % 256] = x[i];
    y[i] = buf[i % 256] * c;
  }
}
void run(const float* x, float* y, int M, int N) { rows_shared<<<(M * N + 255) / 256, 256>>>(x, y, M, N); }
