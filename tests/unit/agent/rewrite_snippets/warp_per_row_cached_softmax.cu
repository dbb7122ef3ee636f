// test: kernel=softmax rewrite=warp-per-row lanes=256 cache=16
// expect: applies
// expect-output: float wl_row[16];
// expect-output: const bool wl_row_fits = (cols) - (0) <= 4096;
// expect-output: wl_row[wl_j] = xr[c];
// expect-output: m = wl_block_max(m);
// expect-output: s = wl_block_sum(s);
// expect-output: yr[c] = expf(wl_row[wl_j] - m) / s;
// expect-launch: block=256,1,1 swap-xy=0 scale=256/1,1/1,1/1
// A block per row, the row read once into registers when it has at most
// 4096 elements: `x` is __restrict__, so nothing the kernel writes reaches it.
#include <cuda_runtime.h>
__global__ void softmax(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float* xr = x + (size_t)r * cols;
  float* yr = y + (size_t)r * cols;
  float m = -INFINITY;
  for (int c = 0; c < cols; ++c) m = fmaxf(m, xr[c]);
  float s = 0.f;
  for (int c = 0; c < cols; ++c) s += expf(xr[c] - m);
  for (int c = 0; c < cols; ++c) yr[c] = expf(xr[c] - m) / s;
}
void run(const float* x, float* y, int rows, int cols) { softmax<<<(rows + 127) / 128, 128>>>(x, y, rows, cols); }
