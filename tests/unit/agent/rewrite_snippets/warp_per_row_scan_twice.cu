// test: kernel=twice rewrite=warp-per-row
// expect: refuses is updated twice in its loop
// The running sum is updated twice in one iteration.
__global__ void twice(const float* x, float* y, int M, int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M) {
    float s = 0.0f;
    for (int k = 0; k < N; ++k) {
      s += x[row * N + k];
      y[row * N + k] = s;
      s += 1.0f;
    }
  }
}
void run(const float* x, float* y, int M, int N) { twice<<<(M + 255) / 256, 256>>>(x, y, M, N); }
