// test: kernel=mm rewrite=tile-k-loop tile=32
// expect: applies
// expect-output: if (wl_t + wl_kk < K) sum += wl_As[threadIdx.y][wl_kk] * wl_Bs[wl_kk][threadIdx.x];
// expect-launch: block=32,32,1
// C style: the counter declared before the loop.
#include <cuda_runtime.h>
__global__ void mm(const float* A, const float* B, float* C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    int k;
    float sum = 0.0f;
    for (k = 0; k < K; k++) sum += A[row * K + k] * B[k * N + col];
    C[row * N + col] = sum;
  }
}
void run(const float* A, const float* B, float* C, int M, int N, int K) {
  dim3 block(16, 16);
  dim3 grid((N + 15) / 16, (M + 15) / 16);
  mm<<<grid, block>>>(A, B, C, M, N, K);
}
