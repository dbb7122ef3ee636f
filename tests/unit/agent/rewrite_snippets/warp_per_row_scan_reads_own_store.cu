// test: kernel=store_then_add rewrite=warp-per-row
// expect: refuses stores into an array the sum reads
// The sum adds the element a statement before it stores: the value is only
// known after that store.
__global__ void store_then_add(const float* x, float* y, int M, int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M) {
    float s = 0.0f;
    for (int k = 0; k < N; ++k) {
      y[row * N + k] = x[row * N + k] * s;
      s += y[row * N + k];
    }
  }
}
void run(const float* x, float* y, int M, int N) { store_then_add<<<(M + 255) / 256, 256>>>(x, y, M, N); }
