// test: kernel=mm rewrite=swap-thread-mapping
// expect: applies
// expect-output: int row = blockIdx.y * blockDim.y + threadIdx.y;
// expect-output: int col = blockIdx.x * blockDim.x + threadIdx.x;
// expect-output: wl_launch::swap_xy(dim3(block))
// expect-launch: swap-xy=1
#include <cuda_runtime.h>
__global__ void mm(const float* A, const float* B, float* C, int M, int N, int K) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  int col = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N) {
    float acc = 0;
    for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
  }
}
void run(const float* A, const float* B, float* C, int M, int N, int K) {
  dim3 block(16, 16);
  dim3 grid((M + 15) / 16, (N + 15) / 16);
  mm<<<grid, block>>>(A, B, C, M, N, K);
}
