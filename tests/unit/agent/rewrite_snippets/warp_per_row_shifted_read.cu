// test: kernel=smooth_rows rewrite=warp-per-row
// expect: refuses a loop reads
// Each element reads the one its neighbour just wrote: the iterations are ordered.
__global__ void smooth_rows(float* y, int M, int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M) {
    for (int k = 1; k < N; ++k) y[row * N + k] = 0.5f * (y[row * N + k] + y[row * N + k - 1]);
  }
}
void run(float* y, int M, int N) { smooth_rows<<<(M + 255) / 256, 256>>>(y, M, N); }
