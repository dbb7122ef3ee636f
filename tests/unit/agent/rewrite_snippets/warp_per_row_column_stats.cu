// test: kernel=channel_stats rewrite=warp-per-row lanes=8 cache=0
// expect: applies
// expect-output: const unsigned wl_row_mask = 0x11111111u << (threadIdx.x % 4);
// expect-output: mean = wl_warp_sum(mean, wl_row_mask);
// expect-output: var = wl_warp_sum(var, wl_row_mask);
// expect-output: __syncwarp(wl_row_mask);
// expect-launch: scale=8/1,1/1,1/1
// Per-channel mean and variance (batch-norm statistics) over a [n][c]
// layout, a thread per channel, two passes; the variance pass reads the
// mean every lane has after the first reduction.
#include <cuda_runtime.h>
__global__ void channel_stats(const float* __restrict__ x, float* mean_out, float* var_out, int n, int c) {
  int ch = blockIdx.x * blockDim.x + threadIdx.x;
  if (ch < c) {
    float mean = 0.f;
    for (int i = 0; i < n; i++) mean += x[i * c + ch];
    mean /= n;
    float var = 0.f;
    for (int i = 0; i < n; i++) {
      float d = x[i * c + ch] - mean;
      var += d * d;
    }
    mean_out[ch] = mean;
    var_out[ch] = var / n;
  }
}
void run(const float* x, float* m, float* v, int n, int c) { channel_stats<<<(c + 255) / 256, 256>>>(x, m, v, n, c); }
