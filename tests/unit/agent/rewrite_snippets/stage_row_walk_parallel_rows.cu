// test: kernel=row_prefix rewrite=stage-row-walk
// expect: refuses warp-per-row splits these row loops over lanes
// A running sum along each row is a scan warp-per-row runs over 32 lanes;
// staging the serial walk measured 1.45x at best where the warp got 6.25x.
__global__ void row_prefix(const float* x, float* y, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float s = 0.f;
  for (int c = 0; c < cols; ++c) {
    s += x[(size_t)r * cols + c];
    y[(size_t)r * cols + c] = s;
  }
}
void run(const float* x, float* y, int rows, int cols) { row_prefix<<<(rows + 255) / 256, 256>>>(x, y, rows, cols); }
