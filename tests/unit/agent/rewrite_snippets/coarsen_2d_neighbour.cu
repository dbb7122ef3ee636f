// test: kernel=diff rewrite=coarsen-2d
// expect: refuses is accessed at two different elements
// Reads a neighbour of its element: not element-wise.
#include <cuda_runtime.h>
__global__ void diff(const float* in, float* out, int rows, int cols) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < cols && y < rows) out[y * cols + x] = in[y * cols + x] - in[y * cols + x + 1];
}
void run(const float* in, float* out, int rows, int cols) {
  dim3 block(16, 16), grid((cols + 15) / 16, (rows + 15) / 16);
  diff<<<grid, block>>>(in, out, rows, cols);
}
