// test: kernel=add_row_bias rewrite=block-dim-index
// expect: applies
// expect-output: int row = blockIdx.y * blockDim.y + threadIdx.y;
// A block index alone as the row (one block per row along y, blocks of one
// thread along y): it is the global index along y.
#include <cuda_runtime.h>
__global__ void add_row_bias(float* m, const float* bias, int rows, int cols) {
  int row = blockIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows && col < cols) m[(size_t)row * cols + col] += bias[row];
}
void run(float* m, const float* bias, int rows, int cols) {
  dim3 grid((cols + 127) / 128, rows);
  add_row_bias<<<grid, 128>>>(m, bias, rows, cols);
}
