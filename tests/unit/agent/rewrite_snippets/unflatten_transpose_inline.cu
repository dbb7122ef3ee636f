// test: kernel=transpose rewrite=unflatten-index
// expect: applies
// expect-output: out[(wl_col) * rows + wl_row] = in[(wl_row * cols + wl_col)];
// expect-launch: cover=p3,p2
// A transpose from a flat index held in a size_t product, the row and the
// column spelled inline, an early return for the guard.
#include <cuda_runtime.h>
__global__ void transpose(const float* in, float* out, int rows, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= rows * cols) return;
  out[(i % cols) * rows + i / cols] = in[i];
}
void run(const float* in, float* out, int rows, int cols) {
  size_t n = (size_t)rows * cols;
  transpose<<<(unsigned)((n + 511) / 512), 512>>>(in, out, rows, cols);
}
