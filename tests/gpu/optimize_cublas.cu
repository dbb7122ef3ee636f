// cuBLAS FP32 SGEMM as the matrix products' yardstick: C = alpha A B + beta C
// at 2048^3 (the size of the matmul examples), pedantic math (no TF32, as
// the examples compute in plain FP32), row-major operands expressed as the
// column-major product B^T A^T. Timed like the examples (harness.cuh): a
// buffer of twice the L2 written before every run, median of 30 runs.
// Prints `cublas_sgemm_ms <median>` last. Build: nvcc -O3 -arch=native -lcublas.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#define CHECK(call)                                                                        \
  do {                                                                                     \
    cudaError_t e = (call);                                                                \
    if (e != cudaSuccess) {                                                                \
      std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e));                     \
      return 2;                                                                            \
    }                                                                                      \
  } while (0)
#define CHECK_BLAS(call)                                                                   \
  do {                                                                                     \
    cublasStatus_t s = (call);                                                             \
    if (s != CUBLAS_STATUS_SUCCESS) {                                                      \
      std::fprintf(stderr, "%s: cublas status %d\n", #call, static_cast<int>(s));          \
      return 2;                                                                            \
    }                                                                                      \
  } while (0)

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 2048;
  const size_t elems = size_t(n) * n;
  float *a = nullptr, *b = nullptr, *c = nullptr;
  CHECK(cudaMalloc(&a, elems * sizeof(float)));
  CHECK(cudaMalloc(&b, elems * sizeof(float)));
  CHECK(cudaMalloc(&c, elems * sizeof(float)));
  CHECK(cudaMemset(a, 0, elems * sizeof(float)));
  CHECK(cudaMemset(b, 0, elems * sizeof(float)));
  CHECK(cudaMemset(c, 0, elems * sizeof(float)));
  int dev = 0, l2 = 0;
  CHECK(cudaGetDevice(&dev));
  CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
  const size_t flush_bytes = std::max<size_t>(2 * size_t(l2), 64u << 20);
  void* flush = nullptr;
  CHECK(cudaMalloc(&flush, flush_bytes));
  cublasHandle_t h;
  CHECK_BLAS(cublasCreate(&h));
  CHECK_BLAS(cublasSetMathMode(h, CUBLAS_PEDANTIC_MATH));
  const float alpha = 1.5f, beta = -0.5f;
  auto gemm = [&] { return cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, b, n, a, n, &beta, c, n); };
  for (int i = 0; i < 3; ++i) CHECK_BLAS(gemm());
  CHECK(cudaDeviceSynchronize());
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  std::vector<float> ms;
  for (int r = 0; r < 30; ++r) {
    CHECK(cudaMemsetAsync(flush, r & 0xFF, flush_bytes));
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaEventRecord(start));
    CHECK_BLAS(gemm());
    CHECK(cudaEventRecord(stop));
    CHECK(cudaDeviceSynchronize());
    float t = 0;
    CHECK(cudaEventElapsedTime(&t, start, stop));
    ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  const double median = ms[ms.size() / 2];
  std::printf("cuBLAS SGEMM %d^3 (pedantic FP32): median %.4f ms (min %.4f), %.1f TFLOP/s\n", n, median, ms.front(),
              2.0 * elems * n / (median * 1e-3) / 1e12);
  std::printf("cublas_sgemm_ms %.6f\n", median);
  cublasDestroy(h);
  return 0;
}
