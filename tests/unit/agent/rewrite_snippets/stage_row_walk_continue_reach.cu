// test: kernel=rises rewrite=stage-row-walk
// expect: refuses contiguous offsets on every iteration
// `x[base + i + 1]` is read only after `continue` skipped the last step:
// it runs on some iterations only, so staging it for every step would read
// one element past the last row.
__global__ void rises(const float* x, float* y, int rows, int n) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    int base = r * n;
    float s = 0.f;
    for (int i = 0; i < n; ++i) {
      float v = x[base + i];
      y[base + i] = s * v;
      if (i + 1 >= n) continue;
      s = s * 0.5f + x[base + i + 1];
    }
  }
}
void run(const float* x, float* y, int rows, int n) { rises<<<(rows + 255) / 256, 256>>>(x, y, rows, n); }
