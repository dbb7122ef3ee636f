// test: kernel=scale_bias rewrite=coarsen-2d width=4
// expect: applies
// expect-output: const int wl_x0 = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
// expect-output: wl_vector_load<4>(wl_in, &(in[y * cols + x]));
// expect-output: wl_out[wl_c] = wl_in[wl_c] * scale[y] + wl_bias[wl_c];
// expect-output: wl_vector_store<4>(&(out[y * cols + x]), wl_out);
// expect-launch: scale=1/4,1/1,1/1
// A 2-D element-wise kernel with a row broadcast (`bias[x]`) and a per-row
// scale (`scale[y]`, the same for every x: it stays a scalar read).
#include <cuda_runtime.h>
__global__ void scale_bias(const float* in, const float* scale, const float* bias, float* out, int rows, int cols) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < cols && y < rows) out[y * cols + x] = in[y * cols + x] * scale[y] + bias[x];
}
void run(const float* in, const float* s, const float* b, float* out, int rows, int cols) {
  dim3 block(16, 16), grid((cols + 15) / 16, (rows + 15) / 16);
  scale_bias<<<grid, block>>>(in, s, b, out, rows, cols);
}
