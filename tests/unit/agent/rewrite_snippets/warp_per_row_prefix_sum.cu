// test: kernel=prefix_rows rewrite=warp-per-row
// expect: refuses an accumulator is read
// A running sum written at every step: the order of the steps matters.
__global__ void prefix_rows(const float* x, float* y, int M, int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M) {
    float s = 0.0f;
    for (int k = 0; k < N; ++k) {
      s += x[row * N + k];
      y[row * N + k] = s;
    }
  }
}
void run(const float* x, float* y, int M, int N) { prefix_rows<<<(M + 255) / 256, 256>>>(x, y, M, N); }
