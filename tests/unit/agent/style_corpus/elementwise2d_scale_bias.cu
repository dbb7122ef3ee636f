// 2-D element-wise: out = in * scale[row] + bias[col], 16x16 blocks.
#include <cuda_runtime.h>
__global__ void scale_bias(const float* in, const float* scale, const float* bias, float* out, int rows, int cols) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < cols && y < rows) out[y * cols + x] = in[y * cols + x] * scale[y] + bias[x];
}
void apply(const float* in, const float* s, const float* b, float* out, int rows, int cols) {
  dim3 block(16, 16), grid((cols + 15) / 16, (rows + 15) / 16);
  scale_bias<<<grid, block>>>(in, s, b, out, rows, cols);
}
