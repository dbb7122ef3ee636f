// test: kernel=two_outputs rewrite=coarsen-2d width=4
// expect: refuses reads an array after writing another
// The launch passes one buffer as `in` and `a`, and `in` is read after `a`
// is written: the original's second statement reads the value the first
// just stored, which loading the group first would not.
#include <cuda_runtime.h>
__global__ void two_outputs(const float* in, float* a, float* b, int rows, int cols) {
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (y < rows && x < cols) {
    a[y * cols + x] = 2.0f * in[y * cols + x];
    b[y * cols + x] = in[y * cols + x] + 1.0f;
  }
}
void run(float* buf, float* b, int rows, int cols) {
  two_outputs<<<dim3((cols + 31) / 32, (rows + 7) / 8), dim3(32, 8)>>>(buf, buf, b, rows, cols);
}
