// test: kernel=mm rewrite=tile-k-loop tile=16
// expect: applies
// expect-output: __shared__ float wl_As[16][16 + 1];
// expect-output: if (wl_t + wl_kk < K) acc += wl_As[threadIdx.y][wl_kk] * wl_Bs[wl_kk][threadIdx.x];
// expect-output: wl_As[threadIdx.y][threadIdx.x] = (row < M && k < K) ? A[row * K + k] : static_cast<float>(0);
// expect-launch: block=16,16,1
#include <cuda_runtime.h>
__global__ void mm(const float* A, const float* B, float* C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
  }
}
void run(const float* A, const float* B, float* C, int M, int N, int K) {
  dim3 block(16, 16);
  dim3 grid((N + block.x - 1) / block.x, (M + block.y - 1) / block.y);
  mm<<<grid, block>>>(A, B, C, M, N, K);
}
