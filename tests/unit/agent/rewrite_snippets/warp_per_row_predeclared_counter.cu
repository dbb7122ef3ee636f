// test: kernel=row_norms rewrite=warp-per-row lanes=32 cache=0
// expect: applies
// expect-output: for (j = (0) + wl_lane; j < n; j += 32)
// expect-output: acc = wl_warp_sum(acc);
// The loop counter is declared before the loop, C style.
#include <cuda_runtime.h>
__global__ void row_norms(const float* a, float* out, int m, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j;
  float acc;
  if (i < m) {
    acc = 0.0f;
    for (j = 0; j < n; j++) acc += a[i * n + j] * a[i * n + j];
    out[i] = sqrtf(acc);
  }
}
void run(const float* a, float* out, int m, int n) { row_norms<<<(m + 255) / 256, 256>>>(a, out, m, n); }
