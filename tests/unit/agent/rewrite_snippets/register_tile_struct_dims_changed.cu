// test: kernel=matmul_abt rewrite=register-tile tile=128
// expect: refuses
// The struct's field changes between the grid's computation and the
// launch (`d.N = 1024`): the grid was computed for other sizes, so
// nothing proves the launch covers the kernel's bounds.
#include <cuda_runtime.h>
struct MatDims {
  int M;
  int N;
  int K;
};
__global__ void matmul_abt(MatDims d, const float* A, const float* B, float* C) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < d.M && col < d.N) {
    float acc = 0.0f;
    for (int k = 0; k < d.K; ++k) acc += A[(size_t)row * d.K + k] * B[(size_t)col * d.K + k];
    C[(size_t)row * d.N + col] = acc;
  }
}
void run(const float* dA, const float* dB, float* dC) {
  MatDims d;
  d.M = 2048;
  d.N = 512;
  d.K = 2048;
  dim3 block(16, 16);
  dim3 grid((d.N + block.x - 1) / block.x, (d.M + block.y - 1) / block.y);
  d.N = 1024;
  matmul_abt<<<grid, block>>>(d, dA, dB, dC);
}
