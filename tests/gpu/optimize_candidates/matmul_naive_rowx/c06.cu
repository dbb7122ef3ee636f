// warplens candidate c06 for kernel `matmul_naive_rowx` (policy builtin)
// plan: swap-thread-mapping() + tile-k-loop(tile=32)
// swap-thread-mapping: 1 access(es) such as `C[row * N + col]` are contiguous along y but strided along x: swapping makes lanes consecutive; tile-k-loop: each thread reads a row of `A` and a column of `B` from global memory: 32x32 shared tiles reuse each element 32 times
// note: swap-thread-mapping: x and y relabelled in the kernel and in every launch: the same (x, y) pairs are computed
// note: swap-thread-mapping: no warp-level primitives: only the grouping of threads into warps changes
// note: tile-k-loop: the launches cover both bounds: every (row, col) the original computed is computed, under the same guard
// note: tile-k-loop: operand subscripts depend only on (row, k) and (k, col); loads outside the bounds are never made and steps beyond K never accumulated
// warplens-launch: kernel=matmul_naive_rowx block=same swap-xy=1 scale=1/1,1/1,1/1 persistent=0
// warplens-launch: kernel=matmul_naive_rowx block=32,32,1 swap-xy=0 scale=1/1,1/1,1/1 persistent=0
// Naive matrix product C = A * B, one thread per output element, with the
// thread order the wrong way round: threadIdx.x walks down the rows. Lanes of
// a warp then read A and write C K (resp. N) floats apart: every access is
// uncoalesced, although the same pairs (row, col) are computed as in the
// good order.
#include "harness.cuh"

#ifndef WARPLENS_LAUNCH_HELPERS
#define WARPLENS_LAUNCH_HELPERS
// Added by warplens: launch shapes for rewritten kernels. wl_launch::grid
// applies the documented rule (docs/optimize.md, "Launch changes"): scale the
// threads per dimension, cover them with the new block, cap persistent grids.
namespace wl_launch {
inline unsigned cover(unsigned long long threads, unsigned block) {
  unsigned long long g = (threads + block - 1) / block;
  return g == 0 ? 1u : static_cast<unsigned>(g);
}
inline dim3 swap_xy(dim3 d) { return dim3(d.y, d.x, d.z); }
inline dim3 grid(dim3 g, dim3 b, dim3 nb, bool swap, long long xn, long long xd, long long yn, long long yd,
                 long long zn, long long zd, int blocks_per_sm) {
  if (swap) {
    g = swap_xy(g);
    b = swap_xy(b);
  }
  dim3 r(cover((1ull * g.x * b.x * xn + xd - 1) / xd, nb.x), cover((1ull * g.y * b.y * yn + yd - 1) / yd, nb.y),
         cover((1ull * g.z * b.z * zn + zd - 1) / zd, nb.z));
  if (blocks_per_sm > 0) {
    static int sms = 0;
    if (sms == 0) {
      int dev = 0;
      cudaGetDevice(&dev);
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
      if (sms <= 0) sms = 1;
    }
    const unsigned cap = static_cast<unsigned>(sms * blocks_per_sm);
    if (r.x > cap) r.x = cap;
  }
  return r;
}
}  // namespace wl_launch
#endif

__global__ void matmul_naive_rowx(const float* A, const float* B, float* C, int M, int N, int K) {
  // Rewritten by warplens (tile-k-loop): operands staged through 32x32 shared tiles, each element
  // loaded once per block; loads guarded, out-of-range k never accumulated.
  __shared__ float wl_As[32][32 + 1];
  __shared__ float wl_Bs[32][32 + 1];
  const int row = blockIdx.y * 32 + threadIdx.y;
  const int col = blockIdx.x * 32 + threadIdx.x;
  float acc = 0.0f;
  for (int wl_t = 0; wl_t < K; wl_t += 32) {
    {
      const int row = blockIdx.y * 32 + threadIdx.y;
      const int k = wl_t + threadIdx.x;
      wl_As[threadIdx.y][threadIdx.x] = (row < M && k < K) ? A[row * K + k] : static_cast<float>(0);
    }
    {
      const int k = wl_t + threadIdx.y;
      const int col = blockIdx.x * 32 + threadIdx.x;
      wl_Bs[threadIdx.y][threadIdx.x] = (col < N && k < K) ? B[k * N + col] : static_cast<float>(0);
    }
    __syncthreads();
#pragma unroll
    for (int wl_kk = 0; wl_kk < 32; ++wl_kk) {
      if (wl_t + wl_kk < K) acc += wl_As[threadIdx.y][wl_kk] * wl_Bs[wl_kk][threadIdx.x];
    }
    __syncthreads();
  }
  if (row < M && col < N) {
    C[row * N + col] = acc;
  }
}

void matmul(const float* A, const float* B, float* C, int M, int N, int K) {
  dim3 block(16, 16);
  dim3 grid((M + block.x - 1) / block.x, (N + block.y - 1) / block.y);
  matmul_naive_rowx<<<wl_launch::grid(dim3(wl_launch::grid(dim3(grid), dim3(block), wl_launch::swap_xy(dim3(block)), true, 1, 1, 1, 1, 1, 1, 0)), dim3(wl_launch::swap_xy(dim3(block))), dim3(32, 32, 1), false, 1, 1, 1, 1, 1, 1, 0), dim3(32, 32, 1)>>>(A, B, C, M, N, K);
}

int main(int argc, char** argv) {
  example::Run run(argc, argv, "matmul_naive_rowx");
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
