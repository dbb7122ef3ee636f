// C = A B: row pointers, size_t offsets, a pre-declared counter.
#include <cuda_runtime.h>
__global__ void sgemm(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N,
                      int K) {
  const int i = blockIdx.y * blockDim.y + threadIdx.y;
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= M || j >= N) return;
  const float* a = A + (size_t)i * K;
  int p;
  float s = 0.f;
  for (p = 0; p < K; ++p) s += a[p] * B[(size_t)p * N + j];
  C[(size_t)i * N + j] = s;
}
void run(const float* A, const float* B, float* C, int M, int N, int K) {
  dim3 block(32, 8), grid((N + 31) / 32, (M + 7) / 8);
  sgemm<<<grid, block>>>(A, B, C, M, N, K);
}
