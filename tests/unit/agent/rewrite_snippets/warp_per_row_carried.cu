// test: kernel=decay rewrite=warp-per-row
// expect: refuses read or updated other than by
// The accumulator is scaled every step: the order of the terms matters.
__global__ void decay(const float* A, float* y, int M, int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M) {
    float acc = 0.0f;
    for (int k = 0; k < N; ++k) acc = acc * 0.5f + A[row * N + k];
    y[row] = acc;
  }
}
void run(const float* A, float* y, int M, int N) { decay<<<(M + 255) / 256, 256>>>(A, y, M, N); }
