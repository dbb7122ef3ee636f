// test: kernel=softmax_bad rewrite=warp-per-row lanes=32 cache=0
// expect: refuses combined other than by a sum, max or min
// Not the online recurrence: the new element is scaled by the old maximum
// (expf(v - m), not expf(v - mn)), so the pair of a part of the row is not
// what the lanes' combine assumes; the loop is left alone.
#include <cuda_runtime.h>
#include <math.h>
__global__ void softmax_bad(const float* x, float* y, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  float m = -INFINITY, s = 0.0f;
  for (int j = 0; j < cols; j++) {
    float v = x[row * cols + j];
    float mn = fmaxf(m, v);
    s = s * expf(m - mn) + expf(v - m);
    m = mn;
  }
  for (int j = 0; j < cols; j++) y[row * cols + j] = expf(x[row * cols + j] - m) / s;
}
void run(const float* x, float* y, int rows, int cols) { softmax_bad<<<(rows + 255) / 256, 256>>>(x, y, rows, cols); }
