// test: kernel=mm_rows rewrite=register-tile tile=64
// expect: applies
// expect-output: ? A[(long long)(K) * row + (long long)(1) * k] :
// expect-output: wl_acc[wl_i][wl_j] += wl_a[wl_i] * wl_b[wl_j];
// expect-output: crow[col] = alpha * sum;
// expect-launch: block=16,16,1 swap-xy=0 scale=1/4,1/4,1/1
// Row pointers and size_t offsets: the operand is spelled again from its
// flattened index over row and k.
#include <cuda_runtime.h>
__global__ void mm_rows(const float* A, const float* B, float* C, int M, int N, int K, float alpha) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    const float* arow = A + (size_t)row * K;
    float* crow = C + (size_t)row * N;
    float sum = 0.0f;
    for (int k = 0; k < K; ++k) sum += arow[k] * B[(size_t)k * N + col];
    crow[col] = alpha * sum;
  }
}
void run(const float* A, const float* B, float* C, int M, int N, int K) {
  dim3 block(16, 16);
  dim3 grid((N + 15) / 16, (M + 15) / 16);
  mm_rows<<<grid, block>>>(A, B, C, M, N, K, 2.0f);
}
