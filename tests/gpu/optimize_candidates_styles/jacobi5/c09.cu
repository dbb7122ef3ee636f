// warplens candidate c09 for kernel `jacobi5` (policy builtin)
// plan: restrict-const()
// restrict-const: 2 pointer parameter(s) gain const/__restrict__
// note: restrict-const: every launch in the file passes distinct pointer variables (no aliasing)
// note: restrict-const: const added only to pointers the kernel never writes through
// One 5-point Jacobi step on an 8192 x 8192 grid: every interior point reads
// its four neighbours and itself. Each input element is read by five threads.
#include "harness.cuh"

__global__ void jacobi5(const float* __restrict__ in, float* __restrict__ out, int W, int H) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= 1 && x < W - 1 && y >= 1 && y < H - 1) {
    int idx = y * W + x;
    out[idx] = 0.25f * (in[idx - 1] + in[idx + 1] + in[idx - W] + in[idx + W]) - in[idx];
  }
}

void step(const float* in, float* out, int W, int H) {
  dim3 block(16, 16);
  dim3 grid((W + block.x - 1) / block.x, (H + block.y - 1) / block.y);
  jacobi5<<<grid, block>>>(in, out, W, H);
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
