// cuBLAS FP32 SGEMM as the matrix products' yardstick: C = alpha A B + beta C
// at 2048^3 (the size of the matmul examples), pedantic math (no TF32, as
// the examples compute in plain FP32), row-major operands expressed as the
// column-major product B^T A^T. Timed like the examples (harness.cuh): a
// buffer of twice the L2 written before every run, median of 30 runs.
// Prints `cublas_sgemm_ms <median>` last. Build: nvcc -O3 -arch=native -lcublas.
//   optimize_cublas [N]                  N^3 (default 2048)
//   optimize_cublas M N K [BATCH]        C (MxN) = A (MxK) B (KxN), BATCH of them
//                                        (cublasSgemmStridedBatched when BATCH > 1)
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
  const int M = n, N = argc > 3 ? std::atoi(argv[2]) : n, K = argc > 3 ? std::atoi(argv[3]) : n;
  const int batch = argc > 4 ? std::atoi(argv[4]) : 1;
  if (argc == 3 || M <= 0 || N <= 0 || K <= 0 || batch <= 0) {
    std::fprintf(stderr, "usage: %s [N] | M N K [BATCH] (positive sizes)\n", argv[0]);
    return 2;
  }
  const size_t sa = size_t(M) * K, sb = size_t(K) * N, sc = size_t(M) * N;
  float *a = nullptr, *b = nullptr, *c = nullptr;
  CHECK(cudaMalloc(&a, sa * batch * sizeof(float)));
  CHECK(cudaMalloc(&b, sb * batch * sizeof(float)));
  CHECK(cudaMalloc(&c, sc * batch * sizeof(float)));
  CHECK(cudaMemset(a, 0, sa * batch * sizeof(float)));
  CHECK(cudaMemset(b, 0, sb * batch * sizeof(float)));
  CHECK(cudaMemset(c, 0, sc * batch * sizeof(float)));
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
  // Row-major C = A B is column-major C^T = B^T A^T: an N x M result.
  auto gemm = [&] {
    if (batch == 1) return cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha, b, N, a, K, &beta, c, N);
    return cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha, b, N, (long long)sb, a, K,
                                     (long long)sa, &beta, c, N, (long long)sc, batch);
  };
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
  std::printf("cuBLAS SGEMM %d x %d x %d, batch %d (pedantic FP32): median %.4f ms (min %.4f), %.1f TFLOP/s\n", M, N,
              K, batch, median, ms.front(), 2.0 * M * N * double(K) * batch / (median * 1e-3) / 1e12);
  std::printf("cublas_sgemm_ms %.6f\n", median);
  cublasDestroy(h);
  return 0;
}
