// test: kernel=matmul_flat rewrite=unflatten-index
// expect: applies
// expect-output: int col = blockIdx.x * blockDim.x + threadIdx.x;
// expect-output: int row = blockIdx.y * blockDim.y + threadIdx.y;
// expect-output: if (row < M && col < N) {
// expect-output: C[(row * N + col)] = sum;
// expect-launch: block=32,8,1
// expect-launch: cover=p4,p3
// A matrix product from a 1-D launch: the output element comes from the
// flat thread index.
#include <cuda_runtime.h>
__global__ void matmul_flat(const float* A, const float* B, float* C, int M, int N, int K) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < M * N) {
    int row = idx / N;
    int col = idx % N;
    float sum = 0.0f;
    for (int k = 0; k < K; ++k) sum += A[row * K + k] * B[k * N + col];
    C[idx] = sum;
  }
}
void run(const float* A, const float* B, float* C, int M, int N, int K) {
  int threads = 256;
  matmul_flat<<<(M * N + threads - 1) / threads, threads>>>(A, B, C, M, N, K);
}
