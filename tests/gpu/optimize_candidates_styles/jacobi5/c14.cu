// warplens candidate c14 for kernel `jacobi5` (policy builtin)
// plan: stencil-tile(rows=8) + restrict-const()
// stencil-tile: 5 reads of `in` around each element (offsets x 0..2, y -1..1): a 32x8 block stages its neighbourhood once in shared memory; restrict-const: 2 pointer parameter(s) gain const/__restrict__
// note: stencil-tile: every read of `in` is at a constant offset (x 0..2, y -1..1) from (x, y) with one row pitch; the kernel never writes it and nothing it writes reaches it
// note: stencil-tile: a tile cell is loaded only when some thread under the original guard reads it, so no element the original leaves alone is read; a barrier orders the loads before the work
// note: stencil-tile: the work runs under the original guard; the launches cover both bounds, and the new grid starts at least the original threads
// note: restrict-const: every launch in the file passes distinct pointer variables (no aliasing)
// note: restrict-const: const added only to pointers the kernel never writes through
// warplens-launch: kernel=jacobi5 block=32,8,1 swap-xy=0 scale=1/1,1/1,1/1 persistent=0
// One 5-point Jacobi step on an 8192 x 8192 grid: every interior point reads
// its four neighbours and itself. Each input element is read by five threads.
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

__global__ void jacobi5(const float* __restrict__ in, float* __restrict__ out, int W, int H) {
  // Rewritten by warplens (stencil-tile): the block's 10x34 neighbourhood of `in` in shared memory,
  // each cell loaded when some thread reads it.
  __shared__ float wl_tile[10][34];
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  {
    const int wl_x0 = blockIdx.x * 32 + (0);
    const int wl_y0 = blockIdx.y * 8 + (-1);
    for (int wl_c = threadIdx.y * 32 + threadIdx.x; wl_c < 10 * 34; wl_c += 32 * 8) {
      const int wl_ty = wl_c / 34, wl_tx = wl_c % 34;
      bool wl_needed = false;
      if (!wl_needed) {
        const int x = wl_x0 + wl_tx - (0);
        const int y = wl_y0 + wl_ty - (0);
        wl_needed = x >= 1 && x < W - 1 && y >= 1 && y < H - 1;
      }
      if (!wl_needed) {
        const int x = wl_x0 + wl_tx - (1);
        const int y = wl_y0 + wl_ty - (-1);
        wl_needed = x >= 1 && x < W - 1 && y >= 1 && y < H - 1;
      }
      if (!wl_needed) {
        const int x = wl_x0 + wl_tx - (1);
        const int y = wl_y0 + wl_ty - (0);
        wl_needed = x >= 1 && x < W - 1 && y >= 1 && y < H - 1;
      }
      if (!wl_needed) {
        const int x = wl_x0 + wl_tx - (1);
        const int y = wl_y0 + wl_ty - (1);
        wl_needed = x >= 1 && x < W - 1 && y >= 1 && y < H - 1;
      }
      if (!wl_needed) {
        const int x = wl_x0 + wl_tx - (2);
        const int y = wl_y0 + wl_ty - (0);
        wl_needed = x >= 1 && x < W - 1 && y >= 1 && y < H - 1;
      }
      if (wl_needed) {
        const int x = wl_x0 + wl_tx;
        const int y = wl_y0 + wl_ty;
        wl_tile[wl_ty][wl_tx] = in[(long long)(W) * y + (long long)(1) * x + -1];
      }
    }
  }
  __syncthreads();
  if (x >= 1 && x < W - 1 && y >= 1 && y < H - 1) {
    int idx = y * W + x;
    out[idx] = 0.25f * (wl_tile[threadIdx.y + 1][threadIdx.x + 0] + wl_tile[threadIdx.y + 1][threadIdx.x + 2] + wl_tile[threadIdx.y + 0][threadIdx.x + 1] + wl_tile[threadIdx.y + 2][threadIdx.x + 1]) - wl_tile[threadIdx.y + 1][threadIdx.x + 1];
  }
}

void step(const float* in, float* out, int W, int H) {
  dim3 block(16, 16);
  dim3 grid((W + block.x - 1) / block.x, (H + block.y - 1) / block.y);
  jacobi5<<<wl_launch::grid(dim3(grid), dim3(block), dim3(32, 8, 1), false, 1, 1, 1, 1, 1, 1, 0), dim3(32, 8, 1)>>>(in, out, W, H);
}

int main(int argc, char** argv) {
  example::Run run(argc, argv, "jacobi5");
  const int full = 8192;
  const int odd[][2] = {{1001, 999}, {33, 4099}, {3, 3}, {517, 7}};
  for (int set = 0; set < run.sets(); ++set) {
    const int W = set == 0 ? full : odd[(set - 1) % 4][0];
    const int H = set == 0 ? full : odd[(set - 1) % 4][1];
    const std::size_t n = static_cast<std::size_t>(W) * H;
    float* in = example::device_alloc<float>(n);
    float* out = example::device_alloc<float>(n);
    std::vector<float> hin = example::fill_uniform(in, n, run.seed(set));
    example::poison(out, n * sizeof(float));
    step(in, out, W, H);
    run.sync("jacobi");
    std::vector<float> got = example::to_host(out, n);
    example::Comparison cmp;
    for (int y = 1; y < H - 1; ++y)
      for (int x = 1; x < W - 1; ++x) {
        const std::size_t i = static_cast<std::size_t>(y) * W + x;
        const float want = 0.25f * (hin[i - 1] + hin[i + 1] + hin[i - W] + hin[i + W]) - hin[i];
        example::compare_one(cmp, i, want, got[i], 1e-6, 1e-6);
      }
    // The border is never written: it must still hold the poison.
    std::size_t border_written = 0;
    for (int y = 0; y < H; ++y)
      for (int x = 0; x < W; ++x)
        if ((x == 0 || y == 0 || x == W - 1 || y == H - 1) && !std::isnan(got[static_cast<std::size_t>(y) * W + x]))
          ++border_written;
    example::Comparison border;
    example::compare_one(border, 0, 0.0, static_cast<double>(border_written), 0.0, 0.0);
    run.check(set, "out", cmp);
    run.check(set, "border (must stay unwritten)", border);
    run.check(set, "in (must be unchanged)", example::compare(example::to_host(in, n), hin, 0.0, 0.0));
    WL_CHECK(cudaFree(in));
    WL_CHECK(cudaFree(out));
  }
  const std::size_t n = static_cast<std::size_t>(full) * full;
  if (run.timing()) {
    float* in = example::device_alloc<float>(n);
    float* out = example::device_alloc<float>(n);
    example::fill_uniform(in, n, run.seed(0));
    run.time([&] { step(in, out, full, full); });
    WL_CHECK(cudaFree(in));
    WL_CHECK(cudaFree(out));
  }
  return run.finish(2.0 * n * sizeof(float), 6.0 * n);
}
