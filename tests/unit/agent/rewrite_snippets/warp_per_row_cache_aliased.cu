// test: kernel=softmax_inplace rewrite=warp-per-row lanes=32 cache=32
// expect: refuses
// The launch passes the same buffer for x and y: a register copy of the row
// would miss the element-wise pass's own stores, so no cache variant is
// proposed (the plain warp-per-row still is).
#include <cuda_runtime.h>
__global__ void softmax_inplace(const float* x, float* y, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float m = -INFINITY;
    for (int c = 0; c < cols; ++c) m = fmaxf(m, x[r * cols + c]);
    float s = 0.f;
    for (int c = 0; c < cols; ++c) s += expf(x[r * cols + c] - m);
    for (int c = 0; c < cols; ++c) y[r * cols + c] = expf(x[r * cols + c] - m) / s;
  }
}
void run(float* x, int rows, int cols) { softmax_inplace<<<(rows + 255) / 256, 256>>>(x, x, rows, cols); }
