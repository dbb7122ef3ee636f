// warplens candidate c10 for kernel `matvec_rows` (policy builtin)
// plan: warp-per-row(cache=0, lanes=32) + restrict-const() + unroll(factor=4) + launch-bounds(min-blocks=8)
// warp-per-row: thread-per-row work in 1 loop(s): lanes of a warp access `A[row * N + k]` a row apart; a warp per row walks each row contiguously; restrict-const: 3 pointer parameter(s) gain const/__restrict__; unroll: 1 innermost loop(s) without #pragma unroll; launch-bounds: at least 8 blocks of 256 threads per multiprocessor (caps registers at 32; the kernel's locals alone need about 16)
// note: warp-per-row: each row is handled by one full warp (blocks are multiples of 32); the row guard is uniform across the warp
// note: warp-per-row: reductions combine only by sum, max or min, and every lane receives the total; element-wise loops write one element per iteration (followed through pointer locals to the parameter) and read what they write only there; stores outside loops run once, in lane 0; statements that change locals only run in every lane on equal values; __syncwarp(); orders stores before later reads by other lanes
// note: warp-per-row: the launch grid covers the rows, and starts 32x the threads
// note: restrict-const: every launch in the file passes distinct pointer variables (no aliasing)
// note: restrict-const: const added only to pointers the kernel never writes through
// note: unroll: unrolling keeps every iteration (the compiler handles remainders)
// note: launch-bounds: every launch in the file uses at most 256 threads per block
// warplens-launch: kernel=matvec_rows block=same swap-xy=0 scale=32/1,1/1,1/1 persistent=0
// Matrix-vector product y = A x with one thread per row. Each thread walks
// its own row, so at every step the 32 lanes of a warp read 32 different
// rows, N * 4 bytes apart: one 32-byte sector per lane for 4 useful bytes.
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

// Added by warplens (warp-per-row): sum over the 32 lanes of a warp, in every lane.
template <typename T>
__device__ __forceinline__ T wl_warp_sum(T v) {
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

__global__ void __launch_bounds__(256, 8) matvec_rows(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y, int M, int N) {
  int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int wl_lane = static_cast<int>((blockIdx.x * blockDim.x + threadIdx.x) % 32);
  if (row < M) {
    float acc = 0.0f;
    if (wl_lane != 0) acc = 0;
    #pragma unroll 4
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
  example::Run run(argc, argv, "matvec_row_per_thread");
  const int full_m = 16384, full_n = 4096;
  const int odd[][2] = {{1001, 1003}, {33, 4097}, {2049, 31}, {517, 7}};
  for (int set = 0; set < run.sets(); ++set) {
    const int M = set == 0 ? full_m : odd[(set - 1) % 4][0];
    const int N = set == 0 ? full_n : odd[(set - 1) % 4][1];
    float* A = example::device_alloc<float>(static_cast<std::size_t>(M) * N);
    float* x = example::device_alloc<float>(N);
    float* y = example::device_alloc<float>(M);
    std::vector<float> hA = example::fill_uniform(A, static_cast<std::size_t>(M) * N, run.seed(set) * 2);
    std::vector<float> hx = example::fill_uniform(x, N, run.seed(set) * 2 + 1);
    example::poison(y, M * sizeof(float));
    matvec(A, x, y, M, N);
    run.sync("matvec");
    std::vector<float> got = example::to_host(y, M);
    example::Comparison cmp;
    for (int r = 0; r < M; ++r) {
      double want = 0, mag = 0;
      for (int k = 0; k < N; ++k) {
        const double p = static_cast<double>(hA[static_cast<std::size_t>(r) * N + k]) * hx[k];
        want += p;
        mag += std::fabs(p);
      }
      example::compare_one(cmp, r, want, got[r], 0.0, 1e-5 * mag + 1e-6);
    }
    run.check(set, "y", cmp);
    run.check(set, "A (must be unchanged)", example::compare(example::to_host(A, hA.size()), hA, 0.0, 0.0));
    run.check(set, "x (must be unchanged)", example::compare(example::to_host(x, hx.size()), hx, 0.0, 0.0));
    WL_CHECK(cudaFree(A));
    WL_CHECK(cudaFree(x));
    WL_CHECK(cudaFree(y));
  }
  const std::size_t elems = static_cast<std::size_t>(full_m) * full_n;
  if (run.timing()) {
    float* A = example::device_alloc<float>(elems);
    float* x = example::device_alloc<float>(full_n);
    float* y = example::device_alloc<float>(full_m);
    example::fill_uniform(A, elems, run.seed(0) * 2);
    example::fill_uniform(x, full_n, run.seed(0) * 2 + 1);
    run.time([&] { matvec(A, x, y, full_m, full_n); });
    WL_CHECK(cudaFree(A));
    WL_CHECK(cudaFree(x));
    WL_CHECK(cudaFree(y));
  }
  return run.finish(4.0 * (elems + full_n + full_m), 2.0 * elems);
}
