// test: kernel=conv rewrite=window-tile rows=8
// expect: applies
// expect-output: if (!(xx >= 0 && xx < width && yy >= 0 && yy < height)) continue;
// expect-output: sum += wl_tile[(int)threadIdx.y + (1) * dy + (0) - (-1)][(int)threadIdx.x + (1) * dx + (0) - (-1)] * filter[(dy + 1) * 3 + (dx + 1)];
// expect-launch: block=32,8,1
// Zero padding spelled as an `if` around the accumulation rather than a
// `continue`: the read happens exactly when the condition holds, which the
// tile's loads evaluate for the thread each window position maps a cell to.
#include <cuda_runtime.h>
__global__ void conv(const float* in, const float* filter, float* out, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  float sum = 0.0f;
  for (int dy = -1; dy <= 1; ++dy) {
    for (int dx = -1; dx <= 1; ++dx) {
      int yy = y + dy;
      int xx = x + dx;
      if (xx >= 0 && xx < width && yy >= 0 && yy < height)
        sum += in[yy * width + xx] * filter[(dy + 1) * 3 + (dx + 1)];
    }
  }
  out[y * width + x] = sum;
}
void run(const float* in, const float* filter, float* out, int width, int height) {
  dim3 block(16, 16), grid((width + 15) / 16, (height + 15) / 16);
  conv<<<grid, block>>>(in, filter, out, width, height);
}
