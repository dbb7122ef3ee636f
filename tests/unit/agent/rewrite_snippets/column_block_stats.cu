// test: kernel=channel_stats rewrite=column-block lanes=16
// expect: applies
// expect-output: float mean = wl_active ? static_cast<float>(0.f) : static_cast<float>(0);
// expect-output: mean = wl_column_sum(mean);
// expect-output: if (wl_active) {
// expect-output: float g = wl_active ? static_cast<float>(gamma[ch]) : static_cast<float>(0);
// expect-output: var = wl_column_sum(var);
// expect-output: __syncthreads();
// expect-launch: block=32,16,1
// Per-channel statistics in two passes with a read of `gamma[ch]` in the
// guarded body: for a column that does not exist the declaration takes 0
// and reads nothing; `mean /= n` runs under the flag in every lane.
#include <cuda_runtime.h>
__global__ void channel_stats(const float* __restrict__ x, const float* gamma, float* mean_out, float* var_out, int n,
                              int c) {
  int ch = blockIdx.x * blockDim.x + threadIdx.x;
  if (ch < c) {
    float mean = 0.f;
    for (int i = 0; i < n; i++) mean += x[i * c + ch];
    mean /= n;
    float g = gamma[ch];
    float var = 0.f;
    for (int i = 0; i < n; i++) {
      float d = x[i * c + ch] - mean;
      var += d * d;
    }
    mean_out[ch] = mean;
    var_out[ch] = g * var / n;
  }
}
void run(const float* x, const float* g, float* m, float* v, int n, int c) {
  channel_stats<<<(c + 255) / 256, 256>>>(x, g, m, v, n, c);
}
