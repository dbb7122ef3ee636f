// test: kernel=prefix_rows rewrite=warp-per-row lanes=32 cache=0
// expect: applies
// expect-output: for (int wl_base = (0); wl_base < (N); wl_base += 32) {
// expect-output: const int k = wl_base + static_cast<int>(threadIdx.x % 32);
// expect-output: wl_x = x[row * N + k];
// expect-output: const float wl_inclusive = wl_warp_scan(wl_x);
// expect-output: y[row * N + k] = (s + wl_inclusive);
// expect-output: s += __shfl_sync(0xffffffffu, wl_inclusive, 31);
// A running sum written at every step (a row-wise cumulative sum): a warp
// takes 32 elements at a time and a shuffle scan gives each its prefix.
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
