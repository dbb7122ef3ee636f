// warplens candidate c10 for kernel `softmax_rows` (policy builtin)
// plan: warp-per-row(cache=16, lanes=256) + unroll(factor=4) + launch-bounds(min-blocks=4)
// warp-per-row: thread-per-row work in 3 loop(s): lanes of a warp access `xr[c]` a row apart; a block of 256 per row, rows of up to 4096 elements of `x` kept in registers (read once, not 3 times); unroll: 3 innermost loop(s) without #pragma unroll; launch-bounds: at least 4 blocks of 256 threads per multiprocessor (caps registers at 64; the kernel's locals alone need about 46)
// note: warp-per-row: each row is handled by one block of 256 threads: the row, and so the guard, is the block's, so every thread reaches the barriers of the block reductions
// note: warp-per-row: reductions combine only by sum, max or min, and every lane receives the total; element-wise loops write one element per iteration (followed through pointer locals to the parameter) and read what they write only there; stores outside loops run once, in lane 0; statements that change locals only run in every lane on equal values; __syncthreads(); orders stores before later reads by other lanes
// note: warp-per-row: `x` is read at the same elements in 3 loops over the same range and nothing the kernel writes reaches it (distinct pointers at every launch): rows of up to 4096 elements are read once into registers, longer rows take the strided loops
// note: warp-per-row: the launch grid covers the rows, and starts 256x the threads
// note: unroll: unrolling keeps every iteration (the compiler handles remainders)
// note: launch-bounds: every launch in the file uses at most 256 threads per block
// warplens-launch: kernel=softmax_rows block=256,1,1 swap-xy=0 scale=256/1,1/1,1/1 persistent=0
// Row-wise softmax, one thread per row, written the way it usually is: row
// pointers from size_t offsets, a max pass, a sum pass, a normalising pass.
// At every step the 32 lanes of a warp read 32 different rows, `cols` floats
// apart, and every row is read three times.
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

// Added by warplens (warp-per-row): sum over the threads of a block, in every thread.
template <typename T>
__device__ __forceinline__ T wl_block_sum(T v) {
  __shared__ T wl_slot[32];
  v = wl_warp_sum(v);
  __syncthreads();
  if (threadIdx.x % 32 == 0) wl_slot[threadIdx.x / 32] = v;
  __syncthreads();
  v = threadIdx.x % 32 < blockDim.x / 32 ? wl_slot[threadIdx.x % 32] : T(0);
  return wl_warp_sum(v);
}

// Added by warplens (warp-per-row): maximum over the 32 lanes of a warp, in every lane.
template <typename T>
__device__ __forceinline__ T wl_warp_max(T v) {
  for (int offset = 16; offset > 0; offset >>= 1) v = max(v, __shfl_xor_sync(0xffffffffu, v, offset));
  return v;
}

// Added by warplens (warp-per-row): maximum over the threads of a block, in every thread.
template <typename T>
__device__ __forceinline__ T wl_block_max(T v) {
  __shared__ T wl_slot[32];
  v = wl_warp_max(v);
  __syncthreads();
  if (threadIdx.x % 32 == 0) wl_slot[threadIdx.x / 32] = v;
  __syncthreads();
  v = threadIdx.x % 32 < blockDim.x / 32 ? wl_slot[threadIdx.x % 32] : wl_slot[0];
  return wl_warp_max(v);
}

__global__ void __launch_bounds__(256, 4) softmax_rows(const float* x, float* y, int rows, int cols) {
  int r = (blockIdx.x * blockDim.x + threadIdx.x) / 256;
  const int wl_lane = static_cast<int>((blockIdx.x * blockDim.x + threadIdx.x) % 256);
  if (r >= rows) return;
  const float* xr = x + (size_t)r * cols;
  float* yr = y + (size_t)r * cols;
  float m = -INFINITY;
  float wl_row[16];
  const bool wl_row_fits = (cols) - (0) <= 4096;
  if (wl_row_fits) {
  #pragma unroll
    for (int wl_j = 0; wl_j < 16; ++wl_j) {
      const int c = (0) + wl_lane + wl_j * 256;
      if (c < cols) {
        wl_row[wl_j] = xr[c];
        m = fmaxf(m, wl_row[wl_j]);
      }
    }
  } else {
    #pragma unroll 4
    for (int c = (0) + wl_lane; c < cols; c += 256) m = fmaxf(m, xr[c]);
  }
  m = wl_block_max(m);
  float s = 0.0f;
  if (wl_lane != 0) s = 0;
  if (wl_row_fits) {
  #pragma unroll
    for (int wl_j = 0; wl_j < 16; ++wl_j) {
      const int c = (0) + wl_lane + wl_j * 256;
      if (c < cols) {
        s += expf(wl_row[wl_j] - m);
      }
    }
  } else {
    #pragma unroll 4
    for (int c = (0) + wl_lane; c < cols; c += 256) s += expf(xr[c] - m);
  }
  s = wl_block_sum(s);
  const float inv = 1.0f / s;
  if (wl_row_fits) {
  #pragma unroll
    for (int wl_j = 0; wl_j < 16; ++wl_j) {
      const int c = (0) + wl_lane + wl_j * 256;
      if (c < cols) {
        yr[c] = expf(wl_row[wl_j] - m) * inv;
      }
    }
  } else {
    #pragma unroll 4
    for (int c = (0) + wl_lane; c < cols; c += 256) yr[c] = expf(xr[c] - m) * inv;
  }
}

void softmax(const float* x, float* y, int rows, int cols) {
  const int threads = 128;
  softmax_rows<<<wl_launch::grid(dim3((rows + threads - 1) / threads), dim3(threads), dim3(256, 1, 1), false, 256, 1, 1, 1, 1, 1, 0), dim3(256, 1, 1)>>>(x, y, rows, cols);
}

int main(int argc, char** argv) {
  example::Run run(argc, argv, "softmax_row_pointers");
  const int full_rows = 16384, full_cols = 1024;
  // Odd shapes; 4099 and 8193 columns are longer than any register cache.
  const int odd[][2] = {{1000, 1003}, {33, 4099}, {2049, 31}, {7, 8193}};
  for (int set = 0; set < run.sets(); ++set) {
    const int R = set == 0 ? full_rows : odd[(set - 1) % 4][0];
    const int C = set == 0 ? full_cols : odd[(set - 1) % 4][1];
    const std::size_t n = static_cast<std::size_t>(R) * C;
    float* x = example::device_alloc<float>(n);
    float* y = example::device_alloc<float>(n);
    std::vector<float> hx = example::fill_uniform(x, n, run.seed(set), -8.f, 8.f);
    example::poison(y, n * sizeof(float));
    softmax(x, y, R, C);
    run.sync("softmax");
    std::vector<float> got = example::to_host(y, n);
    example::Comparison cmp;
    for (int r = 0; r < R; ++r) {
      double m = -INFINITY, s = 0;
      for (int c = 0; c < C; ++c) m = std::max(m, static_cast<double>(hx[static_cast<std::size_t>(r) * C + c]));
      for (int c = 0; c < C; ++c) s += std::exp(hx[static_cast<std::size_t>(r) * C + c] - m);
      for (int c = 0; c < C; ++c) {
        const std::size_t i = static_cast<std::size_t>(r) * C + c;
        example::compare_one(cmp, i, std::exp(hx[i] - m) / s, got[i], 2e-5, 1e-9);
      }
    }
    run.check(set, "y", cmp);
    run.check(set, "x (must be unchanged)", example::compare(example::to_host(x, n), hx, 0.0, 0.0));
    WL_CHECK(cudaFree(x));
    WL_CHECK(cudaFree(y));
  }
  const std::size_t n = static_cast<std::size_t>(full_rows) * full_cols;
  if (run.timing()) {
    float* x = example::device_alloc<float>(n);
    float* y = example::device_alloc<float>(n);
    example::fill_uniform(x, n, run.seed(0), -8.f, 8.f);
    run.time([&] { softmax(x, y, full_rows, full_cols); });
    WL_CHECK(cudaFree(x));
    WL_CHECK(cudaFree(y));
  }
  return run.finish(2.0 * n * sizeof(float), 5.0 * n);
}
