// test: kernel=row_cdf rewrite=warp-per-row lanes=32 cache=0
// expect: applies
// expect-output: total = wl_warp_sum(total);
// expect-output: const float w = wr[c];
// expect-output: wl_x = w;
// expect-output: outr[c] = (run + wl_inclusive) * inv;
// A normalised cumulative sum per row through row pointers: a reduction
// (the row's total), a uniform statement, then a running sum whose loop
// first declares the element it adds.
__global__ void row_cdf(const float* w, float* out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float* wr = w + (size_t)r * cols;
  float* outr = out + (size_t)r * cols;
  float total = 0.0f;
  for (int c = 0; c < cols; ++c) total += wr[c];
  const float inv = 1.0f / total;
  float run = 0.0f;
  for (int c = 0; c < cols; ++c) {
    const float w = wr[c];
    run += w;
    outr[c] = run * inv;
  }
}
void launch(const float* w, float* out, int rows, int cols) {
  const int threads = 256;
  row_cdf<<<(rows + threads - 1) / threads, threads>>>(w, out, rows, cols);
}
