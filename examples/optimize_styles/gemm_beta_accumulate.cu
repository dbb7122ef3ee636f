// BLAS-style SGEMM, C = alpha * A * B + beta * C, written naively: scale C by
// beta, then accumulate straight into C in global memory, one thread per
// element (x along columns). Every iteration loads and stores C[i][j].
#include "harness.cuh"

__global__ void gemm_nn(const float* a, const float* b, float* c, int m, int n, int k, float alpha, float beta) {
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < m && j < n) {
    c[i * n + j] *= beta;
    for (int p = 0; p < k; ++p) c[i * n + j] += alpha * a[i * k + p] * b[p * n + j];
  }
}

void gemm(const float* a, const float* b, float* c, int m, int n, int k, float alpha, float beta) {
  dim3 block(16, 16);
  dim3 grid((n + block.x - 1) / block.x, (m + block.y - 1) / block.y);
  gemm_nn<<<grid, block>>>(a, b, c, m, n, k, alpha, beta);
}

int main(int argc, char** argv) {
  example::Run run(argc, argv, "gemm_beta_accumulate");
  const int full = 2048;
  const int odd[][3] = {{129, 257, 65}, {31, 33, 1000}, {300, 17, 129}, {64, 96, 31}};
  const float alpha = 1.5f, beta = -0.5f;
  for (int set = 0; set < run.sets(); ++set) {
    const int M = set == 0 ? full : odd[(set - 1) % 4][0];
    const int N = set == 0 ? full : odd[(set - 1) % 4][1];
    const int K = set == 0 ? full : odd[(set - 1) % 4][2];
    float* A = example::device_alloc<float>(static_cast<std::size_t>(M) * K);
    float* B = example::device_alloc<float>(static_cast<std::size_t>(K) * N);
    float* C = example::device_alloc<float>(static_cast<std::size_t>(M) * N);
    std::vector<float> hA = example::fill_uniform(A, static_cast<std::size_t>(M) * K, run.seed(set) * 3);
    std::vector<float> hB = example::fill_uniform(B, static_cast<std::size_t>(K) * N, run.seed(set) * 3 + 1);
    std::vector<float> hC = example::fill_uniform(C, static_cast<std::size_t>(M) * N, run.seed(set) * 3 + 2);
    gemm(A, B, C, M, N, K, alpha, beta);
    run.sync("gemm");
    std::vector<float> got = example::to_host(C, static_cast<std::size_t>(M) * N);
    example::Comparison cmp;
    const std::size_t total = static_cast<std::size_t>(M) * N;
    const std::size_t samples = set == 0 ? 4096 : total;
    for (std::size_t s = 0; s < samples; ++s) {
      const std::size_t idx = set == 0 ? (s < 2 ? s * (total - 1) : example::mix64(s) % total) : s;
      const int r = static_cast<int>(idx / N), col = static_cast<int>(idx % N);
      double want = static_cast<double>(beta) * hC[idx], mag = std::fabs(want);
      for (int p = 0; p < K; ++p) {
        const double t = static_cast<double>(alpha) * hA[static_cast<std::size_t>(r) * K + p] *
                         hB[static_cast<std::size_t>(p) * N + col];
        want += t;
        mag += std::fabs(t);
      }
      example::compare_one(cmp, idx, want, got[idx], 0.0, 1e-5 * mag + 1e-6);
    }
    run.check(set, "C", cmp);
    run.check(set, "A (must be unchanged)", example::compare(example::to_host(A, hA.size()), hA, 0.0, 0.0));
    run.check(set, "B (must be unchanged)", example::compare(example::to_host(B, hB.size()), hB, 0.0, 0.0));
    WL_CHECK(cudaFree(A));
    WL_CHECK(cudaFree(B));
    WL_CHECK(cudaFree(C));
  }
  const std::size_t n = static_cast<std::size_t>(full) * full;
  if (run.timing()) {
    float* A = example::device_alloc<float>(n);
    float* B = example::device_alloc<float>(n);
    float* C = example::device_alloc<float>(n);
    example::fill_uniform(A, n, run.seed(0) * 3);
    example::fill_uniform(B, n, run.seed(0) * 3 + 1);
    example::fill_uniform(C, n, run.seed(0) * 3 + 2);
    run.time([&] { gemm(A, B, C, full, full, full, alpha, beta); });
    WL_CHECK(cudaFree(A));
    WL_CHECK(cudaFree(B));
    WL_CHECK(cudaFree(C));
  }
  return run.finish(4.0 * n * sizeof(float), 2.0 * n * full);
}
