// A kernel with many values live at once: ptxas gives it 168 registers per
// thread on sm_90, and a 1024-thread block may have only 64 (65536 / 1024),
// so the launch below cannot run at all. The fixes: __launch_bounds__(1024)
// (ptxas then fits 64 registers, spilling the rest) or a smaller block.
#define N 96

__global__ void heavy(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float a[N];
#pragma unroll
  for (int k = 0; k < N; ++k) a[k] = in[(i + k * 97) % n];
  for (int r = 0; r < 4; ++r) {
    float b[N];
#pragma unroll
    for (int k = 0; k < N; ++k) b[k] = a[k] * a[(k + 1) % N] + a[(k + 37) % N];
#pragma unroll
    for (int k = 0; k < N; ++k) a[k] = b[k];
  }
  float s = 0.0f;
#pragma unroll
  for (int k = 0; k < N; ++k) s += a[k] * a[N - 1 - k];
  out[i] = s;
}

void run(const float *in, float *out, int n) {
  heavy<<<(n + 1023) / 1024, 1024>>>(in, out, n);
}
