// test: kernel=atb rewrite=tile-k-loop tile=32
// expect: applies
// expect-output: wl_As[threadIdx.x][threadIdx.y] = (row < M && k < K) ? A[k * M + row] : static_cast<float>(0);
// C = A^T B: A is stored k-major, so its tile is loaded with lanes along rows.
#include <cuda_runtime.h>
__global__ void atb(const float* A, const float* B, float* C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[k * M + row] * B[k * N + col];
    C[row * N + col] = acc;
  }
}
void run(const float* A, const float* B, float* C, int M, int N, int K) {
  atb<<<dim3((N + 31) / 32, (M + 31) / 32), dim3(32, 32)>>>(A, B, C, M, N, K);
}
