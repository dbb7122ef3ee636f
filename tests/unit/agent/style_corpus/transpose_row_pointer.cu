// Naive transpose, 2-D, reading rows and writing columns.
#include <cuda_runtime.h>
__global__ void transpose(const float* in, float* out, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols) out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
}
void run(const float* in, float* out, int rows, int cols) {
  dim3 block(32, 8), grid((cols + 31) / 32, (rows + 7) / 8);
  transpose<<<grid, block>>>(in, out, rows, cols);
}
