// test: kernel=add_row_bias rewrite=block-dim-index
// expect: refuses a launch's block is 4 along y, not the index's 1
// Blocks of 4 threads along y: four threads share each blockIdx.y, which is
// not a global index there.
#include <cuda_runtime.h>
__global__ void add_row_bias(float* m, const float* bias, int rows, int cols) {
  int row = blockIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows && col < cols) m[(size_t)row * cols + col] += bias[row];
}
void run(float* m, const float* bias, int rows, int cols) {
  dim3 grid((cols + 31) / 32, rows);
  add_row_bias<<<grid, dim3(32, 4)>>>(m, bias, rows, cols);
}
