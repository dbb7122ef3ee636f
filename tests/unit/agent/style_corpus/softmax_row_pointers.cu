// softmax, one thread per row: row pointers from size_t offsets, __restrict__, early return.
#include <cuda_runtime.h>
__global__ void softmax_rows(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
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
void softmax(const float* x, float* y, int rows, int cols) { softmax_rows<<<(rows + 127) / 128, 128>>>(x, y, rows, cols); }
