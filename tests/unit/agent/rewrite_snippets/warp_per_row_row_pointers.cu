// test: kernel=softmax rewrite=warp-per-row lanes=32 cache=0
// expect: applies
// expect-output: for (int c = (0) + wl_lane; c < cols; c += 32) m = fmaxf(m, xr[c]);
// expect-output: for (int c = (0) + wl_lane; c < cols; c += 32) yr[c] = expf(xr[c] - m) / s;
// expect-output: m = wl_warp_max(m);
// expect-output: s = wl_warp_sum(s);
// expect-launch: scale=32/1,1/1,1/1
// One thread per row, the way people write it: row pointers from size_t
// offsets. The stores go through `yr`, a pointer into `y`, not a local array.
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
