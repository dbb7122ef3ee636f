// warplens candidate c03 for kernel `scale_bias` (policy builtin)
// plan: restrict-const()
// restrict-const: 4 pointer parameter(s) gain const/__restrict__
// note: restrict-const: every launch in the file passes distinct pointer variables (no aliasing)
// note: restrict-const: const added only to pointers the kernel never writes through
// A 2-D element-wise kernel on an 8192 x 8192 matrix with 16x16 blocks:
// out = in * scale[row] + bias[col]. Half-warp rows of 64 bytes and a 2-D
// index computation per element.
#include "harness.cuh"

__global__ void scale_bias(const float* __restrict__ in, const float* __restrict__ scale, const float* __restrict__ bias, float* __restrict__ out, int rows, int cols) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < cols && y < rows) out[y * cols + x] = in[y * cols + x] * scale[y] + bias[x];
}

void apply(const float* in, const float* s, const float* b, float* out, int rows, int cols) {
  dim3 block(16, 16);
  dim3 grid((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
  scale_bias<<<grid, block>>>(in, s, b, out, rows, cols);
}

int main(int argc, char** argv) {
  example::Run run(argc, argv, "scale_bias_2d");
  const int full = 8192;
  const int odd[][2] = {{1001, 999}, {33, 4099}, {3, 5}, {517, 7}};
  for (int set = 0; set < run.sets(); ++set) {
    const int R = set == 0 ? full : odd[(set - 1) % 4][0];
    const int C = set == 0 ? full : odd[(set - 1) % 4][1];
    const std::size_t n = static_cast<std::size_t>(R) * C;
    float* in = example::device_alloc<float>(n);
    float* s = example::device_alloc<float>(R);
    float* b = example::device_alloc<float>(C);
    float* out = example::device_alloc<float>(n);
    std::vector<float> hin = example::fill_uniform(in, n, run.seed(set) * 3);
    std::vector<float> hs = example::fill_uniform(s, R, run.seed(set) * 3 + 1);
    std::vector<float> hb = example::fill_uniform(b, C, run.seed(set) * 3 + 2);
    example::poison(out, n * sizeof(float));
    apply(in, s, b, out, R, C);
    run.sync("scale_bias");
    std::vector<float> got = example::to_host(out, n), want(n);
    for (int y = 0; y < R; ++y)
      for (int x = 0; x < C; ++x) {
        const std::size_t i = static_cast<std::size_t>(y) * C + x;
        want[i] = hin[i] * hs[y] + hb[x];
      }
    run.check(set, "out", example::compare(got, want, 1e-6, 1e-7));
    run.check(set, "in (must be unchanged)", example::compare(example::to_host(in, n), hin, 0.0, 0.0));
    WL_CHECK(cudaFree(in));
    WL_CHECK(cudaFree(s));
    WL_CHECK(cudaFree(b));
    WL_CHECK(cudaFree(out));
  }
  const std::size_t n = static_cast<std::size_t>(full) * full;
  if (run.timing()) {
    float* in = example::device_alloc<float>(n);
    float* s = example::device_alloc<float>(full);
    float* b = example::device_alloc<float>(full);
    float* out = example::device_alloc<float>(n);
    example::fill_uniform(in, n, run.seed(0) * 3);
    example::fill_uniform(s, full, run.seed(0) * 3 + 1);
    example::fill_uniform(b, full, run.seed(0) * 3 + 2);
    run.time([&] { apply(in, s, b, out, full, full); });
    WL_CHECK(cudaFree(in));
    WL_CHECK(cudaFree(s));
    WL_CHECK(cudaFree(b));
    WL_CHECK(cudaFree(out));
  }
  return run.finish(2.0 * n * sizeof(float), 2.0 * n);
}
