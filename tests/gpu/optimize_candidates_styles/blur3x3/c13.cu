// warplens candidate c13 for kernel `blur3x3` (policy builtin)
// plan: stencil-stream(rows=4) + unroll(factor=8)
// stencil-stream: 9 reads of `src` around each element (offsets x 0..2, y 0..2): 4 rows per thread, each input element loaded once into a register; unroll: 1 innermost loop(s) without #pragma unroll
// note: stencil-stream: every read of `src` is at a constant offset (x 0..2, y 0..2) from (x, y) with one row pitch; the kernel never writes it and nothing it writes reaches it, so loading it before the work reads the same values
// note: stencil-stream: the registers are loaded only when the original guard holds at all 4 of the thread's rows, and hold exactly the elements those rows read; otherwise each row runs the original work under the original guard
// note: stencil-stream: each thread handles rows 4 * gid_y .. 4 * gid_y + 3; the launches cover both bounds and the new grid's threads cover at least the rows of the original's
// note: unroll: unrolling keeps every iteration (the compiler handles remainders)
// warplens-launch: kernel=blur3x3 block=32,4,1 swap-xy=0 scale=1/1,1/4,1/1 persistent=0
// A 3x3 box blur of a 8192 x 4096 image, written the way image code often
// is: an early return for the border, `__restrict__` pointers and a size_t
// row offset computed once. Each input element is read by nine threads.
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

__global__ void blur3x3(const float* __restrict__ src, float* __restrict__ dst, int width, int height) {
  // Rewritten by warplens (stencil-stream): 4 rows per thread; when all of them are worked on, each
  // element of `src` they read is loaded once, into a register, before the work.
  const int wl_y0 = (blockIdx.y * blockDim.y + threadIdx.y) * 4;
  bool wl_all_rows = true;
  #pragma unroll
  for (int wl_r = 0; wl_r < 4; ++wl_r) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = wl_y0 + wl_r;
    wl_all_rows = wl_all_rows && (!(x < 1 || y < 1 || x >= width - 1 || y >= height - 1));
  }
  if (wl_all_rows) {
    float wl_v;
    {
      const int x = (blockIdx.x * blockDim.x + threadIdx.x) + (0);
      const int y = wl_y0 + (0);
      wl_v = src[(long long)(width) * y + (long long)(1) * x + -1 + -1 * width];
    }
    float wl_v4;
    {
      const int x = (blockIdx.x * blockDim.x + threadIdx.x) + (0);
      const int y = wl_y0 + (1);
      wl_v4 = src[(long long)(width) * y + (long long)(1) * x + -1 + -1 * width];
    }
    float wl_v7;
    {
      const int x = (blockIdx.x * blockDim.x + threadIdx.x) + (0);
      const int y = wl_y0 + (2);
      wl_v7 = src[(long long)(width) * y + (long long)(1) * x + -1 + -1 * width];
    }
    float wl_v10;
    {
      const int x = (blockIdx.x * blockDim.x + threadIdx.x) + (0);
      const int y = wl_y0 + (3);
      wl_v10 = src[(long long)(width) * y + (long long)(1) * x + -1 + -1 * width];
    }
    float wl_v13;
    {
      const int x = (blockIdx.x * blockDim.x + threadIdx.x) + (0);
      const int y = wl_y0 + (4);
      wl_v13 = src[(long long)(width) * y + (long long)(1) * x + -1 + -1 * width];
    }
    float wl_v16;
    {
      const int x = (blockIdx.x * blockDim.x + threadIdx.x) + (0);
      const int y = wl_y0 + (5);
      wl_v16 = src[(long long)(width) * y + (long long)(1) * x + -1 + -1 * width];
    }
    float wl_v2;
    {
      const int x = (blockIdx.x * blockDim.x + threadIdx.x) + (1);
      const int y = wl_y0 + (0);
      wl_v2 = src[(long long)(width) * y + (long long)(1) * x + -1 + -1 * width];
    }
    float wl_v5;
    {
      const int x = (blockIdx.x * blockDim.x + threadIdx.x) + (1);
      const int y = wl_y0 + (1);
      wl_v5 = src[(long long)(width) * y + (long long)(1) * x + -1 + -1 * width];
    }
    float wl_v8;
    {
      const int x = (blockIdx.x * blockDim.x + threadIdx.x) + (1);
      const int y = wl_y0 + (2);
      wl_v8 = src[(long long)(width) * y + (long long)(1) * x + -1 + -1 * width];
    }
    float wl_v11;
    {
      const int x = (blockIdx.x * blockDim.x + threadIdx.x) + (1);
      const int y = wl_y0 + (3);
      wl_v11 = src[(long long)(width) * y + (long long)(1) * x + -1 + -1 * width];
    }
    float wl_v14;
    {
      const int x = (blockIdx.x * blockDim.x + threadIdx.x) + (1);
      const int y = wl_y0 + (4);
      wl_v14 = src[(long long)(width) * y + (long long)(1) * x + -1 + -1 * width];
    }
    float wl_v17;
    {
      const int x = (blockIdx.x * blockDim.x + threadIdx.x) + (1);
      const int y = wl_y0 + (5);
      wl_v17 = src[(long long)(width) * y + (long long)(1) * x + -1 + -1 * width];
    }
    float wl_v3;
    {
      const int x = (blockIdx.x * blockDim.x + threadIdx.x) + (2);
      const int y = wl_y0 + (0);
      wl_v3 = src[(long long)(width) * y + (long long)(1) * x + -1 + -1 * width];
    }
    float wl_v6;
    {
      const int x = (blockIdx.x * blockDim.x + threadIdx.x) + (2);
      const int y = wl_y0 + (1);
      wl_v6 = src[(long long)(width) * y + (long long)(1) * x + -1 + -1 * width];
    }
    float wl_v9;
    {
      const int x = (blockIdx.x * blockDim.x + threadIdx.x) + (2);
      const int y = wl_y0 + (2);
      wl_v9 = src[(long long)(width) * y + (long long)(1) * x + -1 + -1 * width];
    }
    float wl_v12;
    {
      const int x = (blockIdx.x * blockDim.x + threadIdx.x) + (2);
      const int y = wl_y0 + (3);
      wl_v12 = src[(long long)(width) * y + (long long)(1) * x + -1 + -1 * width];
    }
    float wl_v15;
    {
      const int x = (blockIdx.x * blockDim.x + threadIdx.x) + (2);
      const int y = wl_y0 + (4);
      wl_v15 = src[(long long)(width) * y + (long long)(1) * x + -1 + -1 * width];
    }
    float wl_v18;
    {
      const int x = (blockIdx.x * blockDim.x + threadIdx.x) + (2);
      const int y = wl_y0 + (5);
      wl_v18 = src[(long long)(width) * y + (long long)(1) * x + -1 + -1 * width];
    }
    {
      const int x = blockIdx.x * blockDim.x + threadIdx.x;
      const int y = wl_y0 + 0;
      const std::size_t row = static_cast<std::size_t>(y) * width;
      float s = 0.f;
      s += wl_v + wl_v2 + wl_v3;
      s += wl_v4 + wl_v5 + wl_v6;
      s += wl_v7 + wl_v8 + wl_v9;
      dst[row + x] = s * (1.0f / 9.0f);
    }
    {
      const int x = blockIdx.x * blockDim.x + threadIdx.x;
      const int y = wl_y0 + 1;
      const std::size_t row = static_cast<std::size_t>(y) * width;
      float s = 0.f;
      s += wl_v4 + wl_v5 + wl_v6;
      s += wl_v7 + wl_v8 + wl_v9;
      s += wl_v10 + wl_v11 + wl_v12;
      dst[row + x] = s * (1.0f / 9.0f);
    }
    {
      const int x = blockIdx.x * blockDim.x + threadIdx.x;
      const int y = wl_y0 + 2;
      const std::size_t row = static_cast<std::size_t>(y) * width;
      float s = 0.f;
      s += wl_v7 + wl_v8 + wl_v9;
      s += wl_v10 + wl_v11 + wl_v12;
      s += wl_v13 + wl_v14 + wl_v15;
      dst[row + x] = s * (1.0f / 9.0f);
    }
    {
      const int x = blockIdx.x * blockDim.x + threadIdx.x;
      const int y = wl_y0 + 3;
      const std::size_t row = static_cast<std::size_t>(y) * width;
      float s = 0.f;
      s += wl_v10 + wl_v11 + wl_v12;
      s += wl_v13 + wl_v14 + wl_v15;
      s += wl_v16 + wl_v17 + wl_v18;
      dst[row + x] = s * (1.0f / 9.0f);
    }
  } else {
    #pragma unroll 8
    for (int wl_r = 0; wl_r < 4; ++wl_r) {
      const int x = blockIdx.x * blockDim.x + threadIdx.x;
      const int y = wl_y0 + wl_r;
      if (!(x < 1 || y < 1 || x >= width - 1 || y >= height - 1)) {
        const std::size_t row = static_cast<std::size_t>(y) * width;
        float s = 0.f;
        s += src[row - width + x - 1] + src[row - width + x] + src[row - width + x + 1];
        s += src[row + x - 1] + src[row + x] + src[row + x + 1];
        s += src[row + width + x - 1] + src[row + width + x] + src[row + width + x + 1];
        dst[row + x] = s * (1.0f / 9.0f);
      }
    }
  }
}

void blur(const float* src, float* dst, int width, int height) {
  dim3 block(32, 8);
  dim3 grid((width + block.x - 1) / block.x, (height + block.y - 1) / block.y);
  blur3x3<<<wl_launch::grid(dim3(grid), dim3(block), dim3(32, 4, 1), false, 1, 1, 1, 4, 1, 1, 0), dim3(32, 4, 1)>>>(src, dst, width, height);
}

int main(int argc, char** argv) {
  example::Run run(argc, argv, "blur3x3");
  const int full_w = 8192, full_h = 4096;
  const int odd[][2] = {{1001, 999}, {35, 4097}, {3, 3}, {515, 9}};
  for (int set = 0; set < run.sets(); ++set) {
    const int W = set == 0 ? full_w : odd[(set - 1) % 4][0];
    const int H = set == 0 ? full_h : odd[(set - 1) % 4][1];
    const std::size_t n = static_cast<std::size_t>(W) * H;
    float* src = example::device_alloc<float>(n);
    float* dst = example::device_alloc<float>(n);
    std::vector<float> hin = example::fill_uniform(src, n, run.seed(set));
    example::poison(dst, n * sizeof(float));
    blur(src, dst, W, H);
    run.sync("blur3x3");
    std::vector<float> got = example::to_host(dst, n);
    example::Comparison cmp;
    for (int y = 1; y < H - 1; ++y)
      for (int x = 1; x < W - 1; ++x) {
        const std::size_t i = static_cast<std::size_t>(y) * W + x;
        float s = 0.f;
        s += hin[i - W - 1] + hin[i - W] + hin[i - W + 1];
        s += hin[i - 1] + hin[i] + hin[i + 1];
        s += hin[i + W - 1] + hin[i + W] + hin[i + W + 1];
        example::compare_one(cmp, i, s * (1.0f / 9.0f), got[i], 1e-5, 1e-6);
      }
    // The border is never written: it must still hold the poison.
    std::size_t border_written = 0;
    for (int y = 0; y < H; ++y)
      for (int x = 0; x < W; ++x)
        if ((x == 0 || y == 0 || x == W - 1 || y == H - 1) && !std::isnan(got[static_cast<std::size_t>(y) * W + x]))
          ++border_written;
    example::Comparison border;
    example::compare_one(border, 0, 0.0, static_cast<double>(border_written), 0.0, 0.0);
    run.check(set, "dst", cmp);
    run.check(set, "border (must stay unwritten)", border);
    run.check(set, "src (must be unchanged)", example::compare(example::to_host(src, n), hin, 0.0, 0.0));
    WL_CHECK(cudaFree(src));
    WL_CHECK(cudaFree(dst));
  }
  const std::size_t n = static_cast<std::size_t>(full_w) * full_h;
  if (run.timing()) {
    float* src = example::device_alloc<float>(n);
    float* dst = example::device_alloc<float>(n);
    example::fill_uniform(src, n, run.seed(0));
    run.time([&] { blur(src, dst, full_w, full_h); });
    WL_CHECK(cudaFree(src));
    WL_CHECK(cudaFree(dst));
  }
  return run.finish(2.0 * n * sizeof(float), 10.0 * n);
}
