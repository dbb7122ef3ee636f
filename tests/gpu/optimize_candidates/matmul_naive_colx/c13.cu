// warplens candidate c13 for kernel `matmul_naive_colx` (policy builtin)
// plan: unroll(factor=4)
// unroll: 1 innermost loop(s) without #pragma unroll
// note: unroll: unrolling keeps every iteration (the compiler handles remainders)
// Naive matrix product C = A * B, one thread per output element, in the
// good thread order (threadIdx.x walks along a row of C): loads of B and
// stores of C are coalesced, A is broadcast. Still every operand comes from
// global memory (L1/L2) at every step: no reuse through shared memory.
#include "harness.cuh"

__global__ void matmul_naive_colx(const float* A, const float* B, float* C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.0f;
    #pragma unroll 4
    for (int k = 0; k < K; ++k) {
      acc += A[row * K + k] * B[k * N + col];
    }
    C[row * N + col] = acc;
  }
}

void matmul(const float* A, const float* B, float* C, int M, int N, int K) {
  dim3 block(16, 16);
  dim3 grid((N + block.x - 1) / block.x, (M + block.y - 1) / block.y);
  matmul_naive_colx<<<grid, block>>>(A, B, C, M, N, K);
}

int main(int argc, char** argv) {
  example::Run run(argc, argv, "matmul_naive_colx");
  const int full = 2048;
  const int odd[][3] = {{129, 257, 65}, {31, 33, 1000}, {300, 17, 129}, {64, 96, 31}};
  for (int set = 0; set < run.sets(); ++set) {
    const int M = set == 0 ? full : odd[(set - 1) % 4][0];
    const int N = set == 0 ? full : odd[(set - 1) % 4][1];
    const int K = set == 0 ? full : odd[(set - 1) % 4][2];
    float* A = example::device_alloc<float>(static_cast<std::size_t>(M) * K);
    float* B = example::device_alloc<float>(static_cast<std::size_t>(K) * N);
    float* C = example::device_alloc<float>(static_cast<std::size_t>(M) * N);
    std::vector<float> hA = example::fill_uniform(A, static_cast<std::size_t>(M) * K, run.seed(set) * 2);
    std::vector<float> hB = example::fill_uniform(B, static_cast<std::size_t>(K) * N, run.seed(set) * 2 + 1);
    example::poison(C, static_cast<std::size_t>(M) * N * sizeof(float));
    matmul(A, B, C, M, N, K);
    run.sync("matmul");
    std::vector<float> hC = example::to_host(C, static_cast<std::size_t>(M) * N);
    // Full size: 4096 sampled elements plus the corners; small sizes: all of them.
    example::Comparison cmp;
    const std::size_t total = static_cast<std::size_t>(M) * N;
    const std::size_t samples = set == 0 ? 4096 : total;
    for (std::size_t s = 0; s < samples; ++s) {
      std::size_t idx = set == 0 ? (s < 2 ? s * (total - 1) : example::mix64(s) % total) : s;
      const int r = static_cast<int>(idx / N), c = static_cast<int>(idx % N);
      double want = 0, mag = 0;
      for (int k = 0; k < K; ++k) {
        want += static_cast<double>(hA[static_cast<std::size_t>(r) * K + k]) * hB[static_cast<std::size_t>(k) * N + c];
        mag += std::fabs(static_cast<double>(hA[static_cast<std::size_t>(r) * K + k]) * hB[static_cast<std::size_t>(k) * N + c]);
      }
      example::compare_one(cmp, idx, want, hC[idx], 0.0, 1e-5 * mag + 1e-6);
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
    example::fill_uniform(A, n, run.seed(0) * 2);
    example::fill_uniform(B, n, run.seed(0) * 2 + 1);
    run.time([&] { matmul(A, B, C, full, full, full); });
    WL_CHECK(cudaFree(A));
    WL_CHECK(cudaFree(B));
    WL_CHECK(cudaFree(C));
  }
  return run.finish(3.0 * n * sizeof(float), 2.0 * n * full);
}
