// test: kernel=softmax_rows rewrite=warp-per-row lanes=256 cache=16
// expect: applies
// expect-output: __shared__ float wl_slot_m[32], wl_slot_s[32];
// An online softmax with row pointers, kept in registers for rows of up to
// 4096 elements, a block of 256 threads per row: the warps' pairs meet in
// shared slots.
#include <cuda_runtime.h>
#include <math.h>
__global__ void softmax_rows(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  const float* xr = x + (size_t)row * cols;
  float* yr = y + (size_t)row * cols;
  float m = -INFINITY, s = 0.0f;
  for (int j = 0; j < cols; j++) {
    float v = xr[j];
    float m_new = fmaxf(m, v);
    s = s * expf(m - m_new) + expf(v - m_new);
    m = m_new;
  }
  const float inv = 1.0f / s;
  for (int j = 0; j < cols; j++) yr[j] = expf(xr[j] - m) * inv;
}
void run(const float* x, float* y, int rows, int cols) { softmax_rows<<<(rows + 255) / 256, 256>>>(x, y, rows, cols); }
