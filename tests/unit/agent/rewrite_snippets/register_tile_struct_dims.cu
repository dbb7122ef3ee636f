// test: kernel=matmul_abt rewrite=register-tile tile=128
// expect: applies
// expect-output: wl_acc[wl_i][wl_j] += wl_a[wl_i] * wl_b[wl_j];
// expect-output: C[(size_t)row * d.N + col] = acc;
// expect-launch: block=16,16,1 swap-xy=0 scale=1/8,1/8,1/1
// C = A B^T with the sizes in a struct passed by value (`MatDims d`, bounds
// `d.M`, `d.N`, `d.K`): each bound is a field of a parameter the kernel
// never changes, and the grid is computed from the same fields of the
// variable the launch passes, so the launch covers the bounds.
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
    const float* a = A + (size_t)row * d.K;
    const float* b = B + (size_t)col * d.K;
    float acc = 0.0f;
    for (int k = 0; k < d.K; ++k) acc += a[k] * b[k];
    C[(size_t)row * d.N + col] = acc;
  }
}
void run(const float* dA, const float* dB, float* dC) {
  MatDims d;
  d.M = 2048;
  d.N = 2048;
  d.K = 2048;
  dim3 block(16, 16);
  dim3 grid((d.N + block.x - 1) / block.x, (d.M + block.y - 1) / block.y);
  matmul_abt<<<grid, block>>>(d, dA, dB, dC);
}
