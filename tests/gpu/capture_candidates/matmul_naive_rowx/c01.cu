// warplens candidate c01 for kernel `matmul_naive_rowx` (policy builtin)
// plan: swap-thread-mapping()
// swap-thread-mapping: 1 access(es) such as `C[row * N + col]` are contiguous along y but strided along x: swapping makes lanes consecutive
// note: swap-thread-mapping: x and y relabelled in the kernel and in every launch: the same (x, y) pairs are computed
// note: swap-thread-mapping: no warp-level primitives: only the grouping of threads into warps changes
// warplens-launch: kernel=matmul_naive_rowx block=same swap-xy=1 scale=1/1,1/1,1/1 persistent=0
// Naive matrix product with threadIdx.x walking down the rows: every load
// of A and store of C is uncoalesced.
// usage: matmul_naive_rowx [M N K]
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

__global__ void matmul_naive_rowx(const float* A, const float* B, float* C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) {
      acc += A[row * K + k] * B[k * N + col];
    }
    C[row * N + col] = acc;
  }
}

void matmul(const float* A, const float* B, float* C, int M, int N, int K) {
  dim3 block(16, 16);
  dim3 grid((M + block.x - 1) / block.x, (N + block.y - 1) / block.y);
  matmul_naive_rowx<<<wl_launch::grid(dim3(grid), dim3(block), wl_launch::swap_xy(dim3(block)), true, 1, 1, 1, 1, 1, 1, 0), wl_launch::swap_xy(dim3(block))>>>(A, B, C, M, N, K);
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
