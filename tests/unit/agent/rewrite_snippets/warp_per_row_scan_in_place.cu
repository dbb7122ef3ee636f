// test: kernel=cumsum_in_place rewrite=warp-per-row lanes=32 cache=0
// expect: applies
// expect-output: wl_x = a[i * n + k];
// expect-output: a[i * n + k] = (acc + wl_inclusive);
// An in-place cumulative sum: each element is read before it is replaced,
// and no iteration reads another's element.
__global__ void cumsum_in_place(double* a, int m, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < m) {
    double acc = 0.0;
    for (int k = 0; k < n; ++k) {
      acc = acc + a[i * n + k];
      a[i * n + k] = acc;
    }
  }
}
void run(double* a, int m, int n) { cumsum_in_place<<<(m + 63) / 64, 64>>>(a, m, n); }
