// test: kernel=prefix rewrite=split-serial-loop
// expect: refuses is also read elsewhere
// Each iteration reads the element the previous one wrote (a running sum in
// memory): spreading the iterations would read values not yet written.
#include <cuda_runtime.h>
__global__ void prefix(float* y, const float* x, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  for (int c = 1; c < cols; ++c) y[r * cols + c] = y[r * cols + c - 1] + x[r * cols + c];
}
void run(float* y, const float* x, int rows, int cols) { prefix<<<(rows + 255) / 256, 256>>>(y, x, rows, cols); }
