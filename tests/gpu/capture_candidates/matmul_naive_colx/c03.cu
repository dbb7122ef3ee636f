// warplens candidate c03 for kernel `matmul_naive_colx` (policy builtin)
// plan: register-tile(tile=64)
// register-tile: each thread reads a row of `A` and a column of `B`: 64x64 block tiles with 4x4 outputs per thread in registers do 16 multiply-adds per pair of shared loads
// note: register-tile: the launches cover both bounds; the grid (16x16 blocks, 1/4 of the threads per axis) covers them with 64x64 tiles, and each output is stored under the original guard
// note: register-tile: each output accumulates the same terms in the same k order; operand elements outside the bounds are never read and steps beyond K never accumulated
// note: register-tile: declarations before the loop run per output (memory reads only under the guard); what follows the loop runs per output with the accumulator's value
// warplens-launch: kernel=matmul_naive_colx block=16,16,1 swap-xy=0 scale=1/4,1/4,1/1 persistent=0
// Naive matrix product in the good thread order (threadIdx.x along a row of
// C), with no reuse of the operands through shared memory.
// usage: matmul_naive_colx [M N K]
#include <cstdio>
#include <cstdlib>
#include <vector>

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

__global__ void matmul_naive_colx(const float* A, const float* B, float* C, int M, int N, int K) {
  // Rewritten by warplens (register-tile): each 16x16 block computes a 64x64 tile of the output,
  // each thread 4x4 outputs in registers; the operands are staged through shared 64x8 and 8x64 slices.
  // Loads are guarded (zero-filled); k beyond K is never accumulated.
  __shared__ __align__(16) float wl_As[8][64 + 4];
  __shared__ __align__(16) float wl_Bs[8][64 + 4];
  const int wl_tid = threadIdx.y * 16 + threadIdx.x;
  const int wl_row0 = blockIdx.y * 64;
  const int wl_col0 = blockIdx.x * 64;
  float wl_acc[4][4];
  #pragma unroll
  for (int wl_i = 0; wl_i < 4; ++wl_i) {
    #pragma unroll
    for (int wl_j = 0; wl_j < 4; ++wl_j) {
      const int row = wl_row0 + (wl_i / 4) * 32 + threadIdx.y * 4 + wl_i % 4;
      const int col = wl_col0 + (wl_j / 4) * 32 + threadIdx.x * 4 + wl_j % 4;
      float acc = 0.0f;
      wl_acc[wl_i][wl_j] = acc;
    }
  }
  for (int wl_t = 0; wl_t < K; wl_t += 8) {
    #pragma unroll
    for (int wl_l = 0; wl_l < 2; ++wl_l) {
      const int wl_e = wl_tid + wl_l * 256;
      const int wl_o = wl_e / 8;
      const int wl_q = wl_e % 8;
      const int row = wl_row0 + wl_o;
      const int k = wl_t + wl_q;
      wl_As[wl_q][wl_o] = (row < M && k < K) ? A[row * K + k] : static_cast<float>(0);
    }
    #pragma unroll
    for (int wl_l = 0; wl_l < 2; ++wl_l) {
      const int wl_e = wl_tid + wl_l * 256;
      const int wl_o = wl_e % 64;
      const int wl_q = wl_e / 64;
      const int col = wl_col0 + wl_o;
      const int k = wl_t + wl_q;
      wl_Bs[wl_q][wl_o] = (col < N && k < K) ? B[k * N + col] : static_cast<float>(0);
    }
    __syncthreads();
    if (wl_t + 8 <= K) {
      #pragma unroll
      for (int wl_kk = 0; wl_kk < 8; ++wl_kk) {
        float wl_a[4];
        float wl_b[4];
        #pragma unroll
        for (int wl_i = 0; wl_i < 4; ++wl_i) wl_a[wl_i] = wl_As[wl_kk][(wl_i / 4) * 32 + threadIdx.y * 4 + wl_i % 4];
        #pragma unroll
        for (int wl_j = 0; wl_j < 4; ++wl_j) wl_b[wl_j] = wl_Bs[wl_kk][(wl_j / 4) * 32 + threadIdx.x * 4 + wl_j % 4];
        #pragma unroll
        for (int wl_i = 0; wl_i < 4; ++wl_i)
          #pragma unroll
          for (int wl_j = 0; wl_j < 4; ++wl_j) wl_acc[wl_i][wl_j] += wl_a[wl_i] * wl_b[wl_j];
      }
    } else {
      for (int wl_kk = 0; wl_kk < 8 && wl_t + wl_kk < K; ++wl_kk) {
        float wl_a[4];
        float wl_b[4];
        #pragma unroll
        for (int wl_i = 0; wl_i < 4; ++wl_i) wl_a[wl_i] = wl_As[wl_kk][(wl_i / 4) * 32 + threadIdx.y * 4 + wl_i % 4];
        #pragma unroll
        for (int wl_j = 0; wl_j < 4; ++wl_j) wl_b[wl_j] = wl_Bs[wl_kk][(wl_j / 4) * 32 + threadIdx.x * 4 + wl_j % 4];
        #pragma unroll
        for (int wl_i = 0; wl_i < 4; ++wl_i)
          #pragma unroll
          for (int wl_j = 0; wl_j < 4; ++wl_j) wl_acc[wl_i][wl_j] += wl_a[wl_i] * wl_b[wl_j];
      }
    }
    __syncthreads();
  }
  #pragma unroll
  for (int wl_i = 0; wl_i < 4; ++wl_i) {
    #pragma unroll
    for (int wl_j = 0; wl_j < 4; ++wl_j) {
      const int row = wl_row0 + (wl_i / 4) * 32 + threadIdx.y * 4 + wl_i % 4;
      const int col = wl_col0 + (wl_j / 4) * 32 + threadIdx.x * 4 + wl_j % 4;
      if (row < M && col < N) {
        float acc = wl_acc[wl_i][wl_j];
        C[row * N + col] = acc;
      }
    }
  }
}

void matmul(const float* A, const float* B, float* C, int M, int N, int K) {
  dim3 block(16, 16);
  dim3 grid((N + block.x - 1) / block.x, (M + block.y - 1) / block.y);
  matmul_naive_colx<<<wl_launch::grid(dim3(grid), dim3(block), dim3(16, 16, 1), false, 1, 4, 1, 4, 1, 1, 0), dim3(16, 16, 1)>>>(A, B, C, M, N, K);
}

int main(int argc, char** argv) {
  const int M = argc > 3 ? std::atoi(argv[1]) : 2048, N = argc > 3 ? std::atoi(argv[2]) : 2048,
            K = argc > 3 ? std::atoi(argv[3]) : 2048;
  std::vector<float> hA(static_cast<size_t>(M) * K), hB(static_cast<size_t>(K) * N), hC(static_cast<size_t>(M) * N);
  for (size_t i = 0; i < hA.size(); ++i) hA[i] = static_cast<float>((i * 31) % 101) * 0.02f - 1.0f;
  for (size_t i = 0; i < hB.size(); ++i) hB[i] = static_cast<float>((i * 17) % 89) * 0.02f - 0.9f;
  float *A, *B, *C;
  cudaMalloc(&A, hA.size() * sizeof(float));
  cudaMalloc(&B, hB.size() * sizeof(float));
  cudaMalloc(&C, hC.size() * sizeof(float));
  cudaMemcpy(A, hA.data(), hA.size() * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(B, hB.data(), hB.size() * sizeof(float), cudaMemcpyHostToDevice);
  matmul(A, B, C, M, N, K);
  cudaMemcpy(hC.data(), C, hC.size() * sizeof(float), cudaMemcpyDeviceToHost);
  double sum = 0;
  for (float v : hC) sum += v;
  std::printf("matmul %dx%dx%d checksum %.6f\n", M, N, K, sum);
  cudaFree(A);
  cudaFree(B);
  cudaFree(C);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
