// test: kernel=layernorm rewrite=warp-per-row lanes=256 cache=0
// expect: applies
// expect-output: mean = wl_block_sum(mean);
// expect-output: var = wl_block_sum(var);
// expect-output: __syncthreads();
// expect-output: mean /= cols;
// expect-no-output: if (wl_lane == 0) {
// expect-launch: block=256,1,1 swap-xy=0 scale=256/1,1/1,1/1
// Layer norm, one thread per row: two reductions, statements that only
// change locals (every lane runs them on the same totals), then the
// element-wise pass. A block per row.
#include <cuda_runtime.h>
__global__ void layernorm(const float* x, const float* gamma, const float* beta, float* y, int rows, int cols,
                          float eps) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    const float* xr = x + (size_t)r * cols;
    float mean = 0.f;
    for (int c = 0; c < cols; ++c) mean += xr[c];
    mean /= cols;
    float var = 0.f;
    for (int c = 0; c < cols; ++c) {
      float d = xr[c] - mean;
      var += d * d;
    }
    var /= cols;
    const float rstd = rsqrtf(var + eps);
    for (int c = 0; c < cols; ++c) y[(size_t)r * cols + c] = (xr[c] - mean) * rstd * gamma[c] + beta[c];
  }
}
void run(const float* x, const float* g, const float* b, float* y, int rows, int cols) {
  layernorm<<<(rows + 255) / 256, 256>>>(x, g, b, y, rows, cols, 1e-5f);
}
