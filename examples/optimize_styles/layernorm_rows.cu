// Layer normalisation, one thread per row: a mean pass, a variance pass,
// then y = (x - mean) * rstd * gamma + beta. Long rows (4096 floats) and
// every row read three times by one thread.
#include "harness.cuh"

__global__ void layernorm(const float* x, const float* gamma, const float* beta, float* y, int rows, int cols,
                          float eps) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    const float* xr = x + (size_t)r * cols;
    float mean = 0.0f;
    for (int c = 0; c < cols; ++c) mean += xr[c];
    mean /= cols;
    float var = 0.0f;
    for (int c = 0; c < cols; ++c) {
      const float d = xr[c] - mean;
      var += d * d;
    }
    var /= cols;
    const float rstd = rsqrtf(var + eps);
    for (int c = 0; c < cols; ++c) y[(size_t)r * cols + c] = (xr[c] - mean) * rstd * gamma[c] + beta[c];
  }
}

void layer_norm(const float* x, const float* g, const float* b, float* y, int rows, int cols) {
  layernorm<<<(rows + 255) / 256, 256>>>(x, g, b, y, rows, cols, 1e-5f);
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
