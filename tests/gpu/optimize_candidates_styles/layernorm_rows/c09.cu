// warplens candidate c09 for kernel `layernorm` (policy builtin)
// plan: warp-per-row(cache=0, lanes=256)
// warp-per-row: thread-per-row work in 3 loop(s): lanes of a warp access `xr[c]` a row apart; a block of 256 threads per row (for long rows), shuffle and shared reductions
// note: warp-per-row: each row is handled by one block of 256 threads: the row, and so the guard, is the block's, so every thread reaches the barriers of the block reductions
// note: warp-per-row: reductions combine only by sum, max or min, and every lane receives the total; element-wise loops write one element per iteration (followed through pointer locals to the parameter) and read what they write only there; stores outside loops run once, in lane 0; statements that change locals only run in every lane on equal values; __syncthreads(); orders stores before later reads by other lanes
// note: warp-per-row: the launch grid covers the rows, and starts 256x the threads
// warplens-launch: kernel=layernorm block=256,1,1 swap-xy=0 scale=256/1,1/1,1/1 persistent=0
// Layer normalisation, one thread per row: a mean pass, a variance pass,
// then y = (x - mean) * rstd * gamma + beta. Long rows (4096 floats) and
// every row read three times by one thread.
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

__global__ void layernorm(const float* x, const float* gamma, const float* beta, float* y, int rows, int cols,
                          float eps) {
  int r = (blockIdx.x * blockDim.x + threadIdx.x) / 256;
  const int wl_lane = static_cast<int>((blockIdx.x * blockDim.x + threadIdx.x) % 256);
  if (r < rows) {
    const float* xr = x + (size_t)r * cols;
    float mean = 0.0f;
    if (wl_lane != 0) mean = 0;
    for (int c = (0) + wl_lane; c < cols; c += 256) mean += xr[c];
    mean = wl_block_sum(mean);
    mean /= cols;
    float var = 0.0f;
    if (wl_lane != 0) var = 0;
    for (int c = (0) + wl_lane; c < cols; c += 256) {
      const float d = xr[c] - mean;
      var += d * d;
    }
    var = wl_block_sum(var);
    var /= cols;
    const float rstd = rsqrtf(var + eps);
    for (int c = (0) + wl_lane; c < cols; c += 256) y[(size_t)r * cols + c] = (xr[c] - mean) * rstd * gamma[c] + beta[c];
  }
}

void layer_norm(const float* x, const float* g, const float* b, float* y, int rows, int cols) {
  layernorm<<<wl_launch::grid(dim3((rows + 255) / 256), dim3(256), dim3(256, 1, 1), false, 256, 1, 1, 1, 1, 1, 0), dim3(256, 1, 1)>>>(x, g, b, y, rows, cols, 1e-5f);
}

int main(int argc, char** argv) {
  example::Run run(argc, argv, "layernorm_rows");
  const int full_rows = 8192, full_cols = 4096;
  const int odd[][2] = {{1000, 1003}, {33, 4099}, {2049, 31}, {5, 8193}};
  for (int set = 0; set < run.sets(); ++set) {
    const int R = set == 0 ? full_rows : odd[(set - 1) % 4][0];
    const int C = set == 0 ? full_cols : odd[(set - 1) % 4][1];
    const std::size_t n = static_cast<std::size_t>(R) * C;
    float* x = example::device_alloc<float>(n);
    float* g = example::device_alloc<float>(C);
    float* b = example::device_alloc<float>(C);
    float* y = example::device_alloc<float>(n);
    std::vector<float> hx = example::fill_uniform(x, n, run.seed(set) * 3, -2.f, 3.f);
    std::vector<float> hg = example::fill_uniform(g, C, run.seed(set) * 3 + 1, 0.5f, 1.5f);
    std::vector<float> hb = example::fill_uniform(b, C, run.seed(set) * 3 + 2);
    example::poison(y, n * sizeof(float));
    layer_norm(x, g, b, y, R, C);
    run.sync("layernorm");
    std::vector<float> got = example::to_host(y, n);
    example::Comparison cmp;
    for (int r = 0; r < R; ++r) {
      const float* xr = hx.data() + static_cast<std::size_t>(r) * C;
      double mean = 0, var = 0;
      for (int c = 0; c < C; ++c) mean += xr[c];
      mean /= C;
      for (int c = 0; c < C; ++c) var += (xr[c] - mean) * (xr[c] - mean);
      var /= C;
      const double rstd = 1.0 / std::sqrt(var + 1e-5);
      for (int c = 0; c < C; ++c) {
        const std::size_t i = static_cast<std::size_t>(r) * C + c;
        const double want = (xr[c] - mean) * rstd * hg[c] + hb[c];
        example::compare_one(cmp, i, want, got[i], 1e-4, 1e-4);
      }
    }
    run.check(set, "y", cmp);
    run.check(set, "x (must be unchanged)", example::compare(example::to_host(x, n), hx, 0.0, 0.0));
    WL_CHECK(cudaFree(x));
    WL_CHECK(cudaFree(g));
    WL_CHECK(cudaFree(b));
    WL_CHECK(cudaFree(y));
  }
  const std::size_t n = static_cast<std::size_t>(full_rows) * full_cols;
  if (run.timing()) {
    float* x = example::device_alloc<float>(n);
    float* g = example::device_alloc<float>(full_cols);
    float* b = example::device_alloc<float>(full_cols);
    float* y = example::device_alloc<float>(n);
    example::fill_uniform(x, n, run.seed(0) * 3, -2.f, 3.f);
    example::fill_uniform(g, full_cols, run.seed(0) * 3 + 1, 0.5f, 1.5f);
    example::fill_uniform(b, full_cols, run.seed(0) * 3 + 2);
    run.time([&] { layer_norm(x, g, b, y, full_rows, full_cols); });
    WL_CHECK(cudaFree(x));
    WL_CHECK(cudaFree(g));
    WL_CHECK(cudaFree(b));
    WL_CHECK(cudaFree(y));
  }
  return run.finish(2.0 * n * sizeof(float), 8.0 * n);
}
