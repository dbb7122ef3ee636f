// test: kernel=row_filter rewrite=window-tile rows=8
// expect: applies
// expect-output: __shared__ float wl_tile[8][48];
// expect-output: if (xx < 0 || xx >= width) continue;
// expect-launch: block=32,8,1
// A horizontal 17-tap filter with clamped-out edges (a separable
// convolution's row pass): one window counter, along x only.
#include <cuda_runtime.h>
#define RADIUS 8
__global__ void row_filter(const float* src, const float* __restrict__ k, float* dst, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  float sum = 0.f;
  for (int r = -RADIUS; r <= RADIUS; ++r) {
    int xx = x + r;
    if (xx < 0 || xx >= width) continue;
    sum += src[y * width + xx] * k[RADIUS + r];
  }
  dst[y * width + x] = sum;
}
void run(const float* src, const float* k, float* dst, int width, int height) {
  dim3 block(16, 16), grid((width + 15) / 16, (height + 15) / 16);
  row_filter<<<grid, block>>>(src, k, dst, width, height);
}
