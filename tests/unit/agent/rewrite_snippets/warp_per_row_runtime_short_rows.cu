// test: kernel=ell_rows rewrite=warp-per-row lanes=8 cache=0 contiguous=1
// expect: applies
// expect-motivation: rows whose length is known only at run time: 8 neighbouring lanes per row
// expect-launch: scale=8/1
// An ELL-style product whose row length is a parameter: a whole warp per row
// lost to the original on rows of 16 slots, so groups of 8 neighbouring
// lanes are proposed beside it (the verifier's timing decides).
__global__ void ell_rows(int rows, int width, const int* cols, const float* vals, const float* x, float* y) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  const int* c = cols + (size_t)row * width;
  const float* v = vals + (size_t)row * width;
  float sum = 0.0f;
  for (int k = 0; k < width; ++k) {
    int col = c[k];
    if (col >= 0) sum += v[k] * x[col];
  }
  y[row] = sum;
}
void run(int rows, int width, const int* c, const float* v, const float* x, float* y) {
  ell_rows<<<(rows + 255) / 256, 256>>>(rows, width, c, v, x, y);
}
