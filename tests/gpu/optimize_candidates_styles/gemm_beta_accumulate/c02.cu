// warplens candidate c02 for kernel `gemm_nn` (policy builtin)
// plan: register-accumulator() + register-tile(tile=128)
// register-accumulator: `c[i * n + j]` is read and written in global memory on every iteration of its loop; a register holds the sum, one load before and one store after; register-tile: each thread reads a row of `a` and a column of `b`: 128x128 block tiles with 8x8 outputs per thread in registers do 64 multiply-adds per pair of shared loads
// note: register-accumulator: the accumulated element's index does not change in the loop, and nothing else in the loop reaches that element (other arrays are other parameters, passed distinct pointers or __restrict__; no unknown pointer, no storing call, no barrier, atomic or warp primitive, no return): the register holds what the element would after every iteration
// note: register-accumulator: the element is read once before the loop and written once after it, only when the loop runs (a store to it just before the loop becomes the register's initial value, and then the element is written as the original writes it)
// note: register-tile: the launches cover both bounds; the grid (16x16 blocks, 1/8 of the threads per axis) covers them with 128x128 tiles, and each output is stored under the original guard
// note: register-tile: each output accumulates the same terms in the same k order; operand elements outside the bounds are never read and steps beyond K never accumulated
// note: register-tile: declarations before the loop run per output (memory reads only under the guard); what follows the loop runs per output with the accumulator's value
// warplens-launch: kernel=gemm_nn block=16,16,1 swap-xy=0 scale=1/8,1/8,1/1 persistent=0
// BLAS-style SGEMM, C = alpha * A * B + beta * C, written naively: scale C by
// beta, then accumulate straight into C in global memory, one thread per
// element (x along columns). Every iteration loads and stores C[i][j].
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

__global__ void gemm_nn(const float* a, const float* b, float* c, int m, int n, int k, float alpha, float beta) {
  // Rewritten by warplens (register-tile): each 16x16 block computes a 128x128 tile of the output,
  // each thread 8x8 outputs in registers; the operands are staged through shared 128x8 and 8x128 slices.
  // Loads are guarded (zero-filled); k beyond k is never accumulated.
  __shared__ __align__(16) float wl_As[8][128 + 4];
  __shared__ __align__(16) float wl_Bs[8][128 + 4];
  const int wl_tid = threadIdx.y * 16 + threadIdx.x;
  const int wl_row0 = blockIdx.y * 128;
  const int wl_col0 = blockIdx.x * 128;
  float wl_acc2[8][8];
  #pragma unroll
  for (int wl_i = 0; wl_i < 8; ++wl_i) {
    #pragma unroll
    for (int wl_j = 0; wl_j < 8; ++wl_j) {
      const int i = wl_row0 + (wl_i / 4) * 64 + threadIdx.y * 4 + wl_i % 4;
      const int j = wl_col0 + (wl_j / 4) * 64 + threadIdx.x * 4 + wl_j % 4;
      float wl_acc = (i < m && j < n) ? (c[i * n + j] * (beta)) : static_cast<float>(0);
      wl_acc2[wl_i][wl_j] = wl_acc;
    }
  }
  for (int wl_t = 0; wl_t < k; wl_t += 8) {
    {
      const int wl_o = wl_tid / 2;
      const int wl_q = (wl_tid % 2) * 4;
      bool wl_done = false;
      {
        const int i = wl_row0 + wl_o;
        const int p = wl_t + wl_q;
        if (i < m && p + 3 < k) {
          const float* wl_p = &(a[i * k + p]);
          if ((reinterpret_cast<unsigned long long>(wl_p) & 15) == 0) {
            const float4 wl_v = *reinterpret_cast<const float4*>(wl_p);
            wl_As[wl_q][wl_o] = wl_v.x;
            wl_As[wl_q + 1][wl_o] = wl_v.y;
            wl_As[wl_q + 2][wl_o] = wl_v.z;
            wl_As[wl_q + 3][wl_o] = wl_v.w;
            wl_done = true;
          }
        }
      }
      if (!wl_done) {
        #pragma unroll
        for (int wl_l = 0; wl_l < 4; ++wl_l) {
          const int i = wl_row0 + wl_o;
          const int p = wl_t + wl_q + wl_l;
          wl_As[wl_q + wl_l][wl_o] = (i < m && p < k) ? a[i * k + p] : static_cast<float>(0);
        }
      }
    }
    {
      const int wl_o = (wl_tid % 32) * 4;
      const int wl_q = wl_tid / 32;
      bool wl_done = false;
      {
        const int j = wl_col0 + wl_o;
        const int p = wl_t + wl_q;
        if (j + 3 < n && p < k) {
          const float* wl_p = &(b[p * n + j]);
          if ((reinterpret_cast<unsigned long long>(wl_p) & 15) == 0) {
            const float4 wl_v = *reinterpret_cast<const float4*>(wl_p);
            *reinterpret_cast<float4*>(&wl_Bs[wl_q][wl_o]) = wl_v;
            wl_done = true;
          }
        }
      }
      if (!wl_done) {
        #pragma unroll
        for (int wl_l = 0; wl_l < 4; ++wl_l) {
          const int j = wl_col0 + wl_o + wl_l;
          const int p = wl_t + wl_q;
          wl_Bs[wl_q][wl_o + wl_l] = (j < n && p < k) ? b[p * n + j] : static_cast<float>(0);
        }
      }
    }
    __syncthreads();
    if (wl_t + 8 <= k) {
      #pragma unroll
      for (int wl_kk = 0; wl_kk < 8; ++wl_kk) {
        float wl_a2[8];
        float wl_b[8];
        #pragma unroll
        for (int wl_i = 0; wl_i < 8; ++wl_i) wl_a2[wl_i] = wl_As[wl_kk][(wl_i / 4) * 64 + threadIdx.y * 4 + wl_i % 4];
        #pragma unroll
        for (int wl_j = 0; wl_j < 8; ++wl_j) wl_b[wl_j] = wl_Bs[wl_kk][(wl_j / 4) * 64 + threadIdx.x * 4 + wl_j % 4];
        #pragma unroll
        for (int wl_i = 0; wl_i < 8; ++wl_i)
          #pragma unroll
          for (int wl_j = 0; wl_j < 8; ++wl_j) wl_acc2[wl_i][wl_j] += alpha * wl_a2[wl_i] * wl_b[wl_j];
      }
    } else {
      for (int wl_kk = 0; wl_kk < 8 && wl_t + wl_kk < k; ++wl_kk) {
        float wl_a2[8];
        float wl_b[8];
        #pragma unroll
        for (int wl_i = 0; wl_i < 8; ++wl_i) wl_a2[wl_i] = wl_As[wl_kk][(wl_i / 4) * 64 + threadIdx.y * 4 + wl_i % 4];
        #pragma unroll
        for (int wl_j = 0; wl_j < 8; ++wl_j) wl_b[wl_j] = wl_Bs[wl_kk][(wl_j / 4) * 64 + threadIdx.x * 4 + wl_j % 4];
        #pragma unroll
        for (int wl_i = 0; wl_i < 8; ++wl_i)
          #pragma unroll
          for (int wl_j = 0; wl_j < 8; ++wl_j) wl_acc2[wl_i][wl_j] += alpha * wl_a2[wl_i] * wl_b[wl_j];
      }
    }
    __syncthreads();
  }
  #pragma unroll
  for (int wl_i = 0; wl_i < 8; ++wl_i) {
    #pragma unroll
    for (int wl_j = 0; wl_j < 8; ++wl_j) {
      const int i = wl_row0 + (wl_i / 4) * 64 + threadIdx.y * 4 + wl_i % 4;
      const int j = wl_col0 + (wl_j / 4) * 64 + threadIdx.x * 4 + wl_j % 4;
      if (i < m && j < n) {
        float wl_acc = wl_acc2[wl_i][wl_j];
        c[i * n + j] = wl_acc;
      }
    }
  }
}

void gemm(const float* a, const float* b, float* c, int m, int n, int k, float alpha, float beta) {
  dim3 block(16, 16);
  dim3 grid((n + block.x - 1) / block.x, (m + block.y - 1) / block.y);
  gemm_nn<<<wl_launch::grid(dim3(grid), dim3(block), dim3(16, 16, 1), false, 1, 8, 1, 8, 1, 1, 0), dim3(16, 16, 1)>>>(a, b, c, m, n, k, alpha, beta);
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
