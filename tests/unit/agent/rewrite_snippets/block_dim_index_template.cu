// test: kernel=matmul_tn rewrite=block-dim-index
// expect: applies
// expect-output: int i = blockIdx.y * blockDim.y + threadIdx.y;
// expect-output: int j = blockIdx.x * blockDim.x + threadIdx.x;
// A template block size: every launch's block is BS x BS with BS = 16.
#include <cuda_runtime.h>
template <int BLOCK>
__global__ void matmul_tn(const float* A, const float* B, float* C, int M, int N, int K) {
  int i = blockIdx.y * BLOCK + threadIdx.y;
  int j = blockIdx.x * BLOCK + threadIdx.x;
  if (i < M && j < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[(size_t)k * M + i] * B[(size_t)k * N + j];
    C[(size_t)i * N + j] = acc;
  }
}
void run(const float* A, const float* B, float* C, int M, int N, int K) {
  constexpr int BS = 16;
  dim3 threads(BS, BS);
  dim3 blocks((N + BS - 1) / BS, (M + BS - 1) / BS);
  matmul_tn<BS><<<blocks, threads>>>(A, B, C, M, N, K);
}
