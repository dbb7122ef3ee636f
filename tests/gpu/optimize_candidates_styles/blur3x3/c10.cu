// warplens candidate c10 for kernel `blur3x3` (policy builtin)
// plan: launch-bounds(min-blocks=8)
// launch-bounds: at least 8 blocks of 256 threads per multiprocessor (caps registers at 32; the kernel's locals alone need about 17)
// note: launch-bounds: every launch in the file uses at most 256 threads per block
// A 3x3 box blur of a 8192 x 4096 image, written the way image code often
// is: an early return for the border, `__restrict__` pointers and a size_t
// row offset computed once. Each input element is read by nine threads.
#include "harness.cuh"

__global__ void __launch_bounds__(256, 8) blur3x3(const float* __restrict__ src, float* __restrict__ dst, int width, int height) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= width - 1 || y >= height - 1) return;
  const std::size_t row = static_cast<std::size_t>(y) * width;
  float s = 0.f;
  s += src[row - width + x - 1] + src[row - width + x] + src[row - width + x + 1];
  s += src[row + x - 1] + src[row + x] + src[row + x + 1];
  s += src[row + width + x - 1] + src[row + width + x] + src[row + width + x + 1];
  dst[row + x] = s * (1.0f / 9.0f);
}

void blur(const float* src, float* dst, int width, int height) {
  dim3 block(32, 8);
  dim3 grid((width + block.x - 1) / block.x, (height + block.y - 1) / block.y);
  blur3x3<<<grid, block>>>(src, dst, width, height);
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
