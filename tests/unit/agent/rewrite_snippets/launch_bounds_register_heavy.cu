// test: kernel=heavy rewrite=launch-bounds min-blocks=2
// expect: applies
// expect-output: void __launch_bounds__(512, 2) heavy(
__global__ void heavy(const float* a, float* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    double m[16];
    for (int k = 0; k < 16; ++k) m[k] = a[i * 16 + k];
    double s = 0;
    for (int k = 0; k < 16; ++k) s += m[k] * m[15 - k];
    b[i] = static_cast<float>(s);
  }
}
void run(const float* a, float* b, int n) { heavy<<<(n + 511) / 512, 512>>>(a, b, n); }
