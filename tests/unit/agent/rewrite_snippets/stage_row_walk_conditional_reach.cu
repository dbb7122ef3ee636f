// test: kernel=peaks rewrite=stage-row-walk
// expect: refuses contiguous offsets on every iteration
// `x[base + i + 1]` is read only when i + 1 < n: staging it for every step
// would read one element past the last row.
__global__ void peaks(const float* x, int* count, int rows, int n) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    int base = r * n;
    int k = 0;
    for (int i = 0; i < n; ++i) {
      float v = x[base + i];
      if (i + 1 < n && v > x[base + i + 1]) k++;
    }
    count[r] = k;
  }
}
void run(const float* x, int* c, int rows, int n) { peaks<<<(rows + 255) / 256, 256>>>(x, c, rows, n); }
