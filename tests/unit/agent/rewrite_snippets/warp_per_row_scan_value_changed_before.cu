// test: kernel=scaled_prefix rewrite=warp-per-row
// expect: refuses changes `v`, which the sum reads
// The value added is changed after the running sum is read: computing it
// ahead of that statement would add the wrong value.
__global__ void scaled_prefix(const float* x, float* y, int M, int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M) {
    float s = 0.0f;
    for (int k = 0; k < N; ++k) {
      float v = x[row * N + k];
      y[row * N + k] = s;
      v = v * 2.0f;
      s += v;
    }
  }
}
void run(const float* x, float* y, int M, int N) { scaled_prefix<<<(M + 255) / 256, 256>>>(x, y, M, N); }
