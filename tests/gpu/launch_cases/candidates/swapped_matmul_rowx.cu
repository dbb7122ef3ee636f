// warplens-launch: kernel=matmul_naive_rowx block=same swap-xy=1 scale=1/1,1/1,1/1 persistent=0
// Launch-change case: swap-thread-mapping of matmul_rowx.cu: x and y roles
// exchanged in the kernel, so the launch must swap grid and block axes for
// the same (row, col) pairs to be computed.
#include <cstdio>

__global__ void matmul_naive_rowx(const float* A, const float* B, float* C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
  }
}
