// C = A * B with the sizes in a struct passed by value and a plain flat
// index (no row pointers).
#include <cuda_runtime.h>
struct GemmSizes {
  int m, n, k;
};
__global__ void gemm_sizes(GemmSizes s, const float* A, const float* B, float* C) {
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < s.m && j < s.n) {
    float sum = 0.0f;
    for (int p = 0; p < s.k; ++p) sum += A[i * s.k + p] * B[p * s.n + j];
    C[i * s.n + j] = sum;
  }
}
void launch(const float* A, const float* B, float* C) {
  GemmSizes s = {1024, 1024, 1024};
  dim3 threads(16, 16);
  dim3 blocks((s.n + threads.x - 1) / threads.x, (s.m + threads.y - 1) / threads.y);
  gemm_sizes<<<blocks, threads>>>(s, A, B, C);
}
