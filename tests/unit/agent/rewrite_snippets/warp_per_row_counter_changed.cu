// test: kernel=skip_rows rewrite=warp-per-row
// expect: refuses changes its counter
// The loop advances its own counter: lanes cannot split its iterations.
__global__ void skip_rows(const float* A, float* y, int M, int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M) {
    float acc = 0.0f;
    for (int k = 0; k < N; ++k) {
      acc += A[row * N + k];
      if (A[row * N + k] < 0.0f) ++k;
    }
    y[row] = acc;
  }
}
void run(const float* A, float* y, int M, int N) { skip_rows<<<(M + 255) / 256, 256>>>(A, y, M, N); }
