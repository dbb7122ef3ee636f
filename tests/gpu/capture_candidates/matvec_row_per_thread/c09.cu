// warplens candidate c09 for kernel `matvec_rows` (policy builtin)
// plan: warp-per-row(cache=0, lanes=32) + restrict-const() + unroll(factor=2)
// warp-per-row: thread-per-row work in 1 loop(s): lanes of a warp access `A[row * N + k]` a row apart; a warp per row walks each row contiguously; restrict-const: 3 pointer parameter(s) gain const/__restrict__; unroll: 1 innermost loop(s) without #pragma unroll
// note: warp-per-row: each row is handled by one full warp (blocks are multiples of 32); the row guard is uniform across the warp
// note: warp-per-row: reductions combine only by sum, max or min, and every lane receives the total; element-wise loops write one element per iteration (followed through pointer locals to the parameter) and read what they write only there; stores outside loops run once, in lane 0; statements that change locals only run in every lane on equal values; __syncwarp(); orders stores before later reads by other lanes
// note: warp-per-row: the launch grid covers the rows, and starts 32x the threads
// note: restrict-const: every launch in the file passes distinct pointer variables (no aliasing)
// note: restrict-const: const added only to pointers the kernel never writes through
// note: unroll: unrolling keeps every iteration (the compiler handles remainders)
// warplens-launch: kernel=matvec_rows block=same swap-xy=0 scale=32/1,1/1,1/1 persistent=0
// y = A x with one thread per row: at every step a warp's lanes read 32
// different rows.
// usage: matvec_row_per_thread [M N]
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

// Added by warplens (warp-per-row): sum over the 32 lanes of a warp, in every lane.
template <typename T>
__device__ __forceinline__ T wl_warp_sum(T v) {
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

__global__ void matvec_rows(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y, int M, int N) {
  int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int wl_lane = static_cast<int>((blockIdx.x * blockDim.x + threadIdx.x) % 32);
  if (row < M) {
    float acc = 0.0f;
    if (wl_lane != 0) acc = 0;
    #pragma unroll 2
    for (int k = (0) + wl_lane; k < N; k += 32) {
      acc += A[row * N + k] * x[k];
    }
    acc = wl_warp_sum(acc);
    if (wl_lane == 0) {
      y[row] = acc;
    }
  }
}

void matvec(const float* A, const float* x, float* y, int M, int N) {
  const int threads = 256;
  matvec_rows<<<wl_launch::grid(dim3((M + threads - 1) / threads), dim3(threads), dim3(threads), false, 32, 1, 1, 1, 1, 1, 0), threads>>>(A, x, y, M, N);
}

int main(int argc, char** argv) {
  const int M = argc > 2 ? std::atoi(argv[1]) : 16384, N = argc > 2 ? std::atoi(argv[2]) : 4096;
  std::vector<float> hA(static_cast<size_t>(M) * N), hx(N), hy(M);
  for (size_t i = 0; i < hA.size(); ++i) hA[i] = static_cast<float>((i * 2246822519u) % 2001) * 0.001f - 1.0f;
  for (int k = 0; k < N; ++k) hx[k] = static_cast<float>(k % 97) * 0.02f - 0.97f;
  float *A, *x, *y;
  cudaMalloc(&A, hA.size() * sizeof(float));
  cudaMalloc(&x, N * sizeof(float));
  cudaMalloc(&y, M * sizeof(float));
  cudaMemcpy(A, hA.data(), hA.size() * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(x, hx.data(), N * sizeof(float), cudaMemcpyHostToDevice);
  matvec(A, x, y, M, N);
  cudaMemcpy(hy.data(), y, M * sizeof(float), cudaMemcpyDeviceToHost);
  double sum = 0;
  for (float v : hy) sum += v;
  std::printf("matvec %dx%d checksum %.6f\n", M, N, sum);
  cudaFree(A);
  cudaFree(x);
  cudaFree(y);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
