// test: kernel=mm rewrite=register-tile tile=128
// expect: applies
// expect-output: __shared__ __align__(16) float wl_As[8][128 + 4];
// expect-output: wl_acc[wl_i][wl_j] += wl_a[wl_i] * wl_b[wl_j];
// expect-output: const float4 wl_v = *reinterpret_cast<const float4*>(wl_p);
// expect-output: C[row * N + col] = acc;
// expect-launch: block=16,16,1 swap-xy=0 scale=1/8,1/8,1/1
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
  dim3 grid((N + 15) / 16, (M + 15) / 16);
  mm<<<grid, block>>>(A, B, C, M, N, K);
}
