// warplens candidate c14 for kernel `transpose_naive` (policy builtin)
// plan: launch-bounds(min-blocks=2)
// launch-bounds: at least 2 blocks of 256 threads per multiprocessor (caps registers at 128; the kernel's locals alone need about 14)
// note: launch-bounds: every launch in the file uses at most 256 threads per block
// Naive matrix transpose: each thread moves one element. The load is
// coalesced (consecutive threads read consecutive columns of a row), the store
// is not: consecutive threads write elements H floats apart, so every warp
// store touches 32 different 32-byte sectors.
#include "harness.cuh"

__global__ void __launch_bounds__(256, 2) transpose_naive(const float* in, float* out, int W, int H) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;  // column of `in`
  int y = blockIdx.y * blockDim.y + threadIdx.y;  // row of `in`
  if (x < W && y < H) {
    out[x * H + y] = in[y * W + x];
  }
}

void transpose(const float* in, float* out, int W, int H) {
  dim3 block(16, 16);
  dim3 grid((W + block.x - 1) / block.x, (H + block.y - 1) / block.y);
  transpose_naive<<<grid, block>>>(in, out, W, H);
}

int main(int argc, char** argv) {
  example::Run run(argc, argv, "transpose_naive");
  const int full_w = 8192, full_h = 8192;
  const int odd[][2] = {{1000, 1003}, {33, 4097}, {2049, 31}, {517, 517}};
  for (int set = 0; set < run.sets(); ++set) {
    const int W = set == 0 ? full_w : odd[(set - 1) % 4][0];
    const int H = set == 0 ? full_h : odd[(set - 1) % 4][1];
    const std::size_t n = static_cast<std::size_t>(W) * H;
    float* in = example::device_alloc<float>(n);
    float* out = example::device_alloc<float>(n);
    std::vector<float> h_in = example::fill_uniform(in, n, run.seed(set));
    example::poison(out, n * sizeof(float));
    transpose(in, out, W, H);
    run.sync("transpose");
    std::vector<float> got = example::to_host(out, n), want(n);
    for (int y = 0; y < H; ++y)
      for (int x = 0; x < W; ++x) want[static_cast<std::size_t>(x) * H + y] = h_in[static_cast<std::size_t>(y) * W + x];
    run.check(set, "out", example::compare(got, want, 0.0, 0.0));
    std::vector<float> in_after = example::to_host(in, n);
    run.check(set, "in (must be unchanged)", example::compare(in_after, h_in, 0.0, 0.0));
    WL_CHECK(cudaFree(in));
    WL_CHECK(cudaFree(out));
  }
  const std::size_t n = static_cast<std::size_t>(full_w) * full_h;
  if (run.timing()) {
    float* in = example::device_alloc<float>(n);
    float* out = example::device_alloc<float>(n);
    example::fill_uniform(in, n, run.seed(0));
    run.time([&] { transpose(in, out, full_w, full_h); });
    WL_CHECK(cudaFree(in));
    WL_CHECK(cudaFree(out));
  }
  return run.finish(2.0 * n * sizeof(float), 0);
}
