// Row-wise softmax, one thread per row, written the way it usually is: row
// pointers from size_t offsets, a max pass, a sum pass, a normalising pass.
// At every step the 32 lanes of a warp read 32 different rows, `cols` floats
// apart, and every row is read three times.
#include "harness.cuh"

__global__ void softmax_rows(const float* x, float* y, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float* xr = x + (size_t)r * cols;
  float* yr = y + (size_t)r * cols;
  float m = -INFINITY;
  for (int c = 0; c < cols; ++c) m = fmaxf(m, xr[c]);
  float s = 0.0f;
  for (int c = 0; c < cols; ++c) s += expf(xr[c] - m);
  const float inv = 1.0f / s;
  for (int c = 0; c < cols; ++c) yr[c] = expf(xr[c] - m) * inv;
}

void softmax(const float* x, float* y, int rows, int cols) {
  const int threads = 128;
  softmax_rows<<<(rows + threads - 1) / threads, threads>>>(x, y, rows, cols);
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
