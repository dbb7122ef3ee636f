// Verifier GPU case: a BLAS-style read-modify-write kernel,
// c = beta * c + alpha * a * b, written the way the issue-14 report had it
// (c scaled in place, then accumulated into). c is read and written: an
// in/out buffer that must be restored, completely and before the launch, for
// every run. The original verified as its own candidate must come out level
// 1 (it came out -1 with the restore racing the launch).
//
//   gemm_beta [N]   N x N matrices (default 512)
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void gemm_beta(const float* a, const float* b, float* c, float alpha, float beta, int n) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < n && col < n) {
    c[row * n + col] *= beta;
    for (int k = 0; k < n; ++k) c[row * n + col] += alpha * a[row * n + k] * b[k * n + col];
  }
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 512;
  if (n < 16 || n % 16) {
    std::fprintf(stderr, "usage: gemm_beta [N, a multiple of 16]\n");
    return 64;
  }
  std::vector<float> a(n * n), b(n * n), c(n * n);
  for (int i = 0; i < n * n; ++i) {
    a[i] = 0.01f * static_cast<float>(i % 97) - 0.4f;
    b[i] = 0.02f * static_cast<float>(i % 89) - 0.8f;
    c[i] = 1.0f + 0.001f * static_cast<float>(i % 1013);
  }
  float *da, *db, *dc;
  if (cudaMalloc(&da, n * n * sizeof(float)) || cudaMalloc(&db, n * n * sizeof(float)) ||
      cudaMalloc(&dc, n * n * sizeof(float)))
    return 1;
  cudaMemcpy(da, a.data(), n * n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(db, b.data(), n * n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(dc, c.data(), n * n * sizeof(float), cudaMemcpyHostToDevice);
  gemm_beta<<<dim3(n / 16, n / 16), dim3(16, 16)>>>(da, db, dc, 1.5f, 0.5f, n);
  if (cudaMemcpy(c.data(), dc, n * n * sizeof(float), cudaMemcpyDeviceToHost) != cudaSuccess) return 1;
  double sum = 0;
  for (float v : c) sum += v;
  std::printf("gemm_beta checksum %.3f\n", sum);
  return 0;
}
