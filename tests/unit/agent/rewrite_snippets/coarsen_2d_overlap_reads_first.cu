// test: kernel=axpy_rows rewrite=coarsen-2d width=4
// expect: applies
// expect-output: wl_vector_store<4>(&(y[r * cols + c]), wl_y);
// The launch passes one buffer as x and y (in place): nothing proves the
// arrays distinct, but each element's work reads before it writes, so a
// thread's group loaded first reads what the original read.
#include <cuda_runtime.h>
__global__ void axpy_rows(const float* x, float* y, float a, int rows, int cols) {
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows && c < cols) y[r * cols + c] = a * x[r * cols + c] + y[r * cols + c];
}
void run(float* buf, float a, int rows, int cols) {
  axpy_rows<<<dim3((cols + 31) / 32, (rows + 7) / 8), dim3(32, 8)>>>(buf, buf, a, rows, cols);
}
