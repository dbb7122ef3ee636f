// test: kernel=dwconv rewrite=window-tile rows=16
// expect: applies
// expect-output: __shared__ float wl_tile[22][38];
// expect-output: (long long)blockIdx.z
// expect-launch: block=32,16,1
// A depthwise 7x7 convolution, one plane per blockIdx.z, through a plane
// pointer and a filter pointer: the tile is the block's plane neighbourhood.
#include <cuda_runtime.h>
__global__ void dwconv(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ y,
                       int channels, int h, int wd) {
  int px = blockIdx.x * blockDim.x + threadIdx.x;
  int py = blockIdx.y * blockDim.y + threadIdx.y;
  int p = blockIdx.z;
  if (px < wd && py < h) {
    const float* plane = x + (size_t)p * h * wd;
    const float* f = w + (p % channels) * 49;
    float s = 0.f;
    for (int dy = -3; dy <= 3; ++dy) {
      int sy = py + dy;
      if (sy < 0 || sy >= h) continue;
      for (int dx = -3; dx <= 3; ++dx) {
        int sx = px + dx;
        if (sx < 0 || sx >= wd) continue;
        s += plane[(size_t)sy * wd + sx] * f[(dy + 3) * 7 + dx + 3];
      }
    }
    y[(size_t)p * h * wd + (size_t)py * wd + px] = s;
  }
}
void run(const float* x, const float* w, float* y, int n, int channels, int h, int wd) {
  dim3 block(32, 8);
  dim3 grid((wd + 31) / 32, (h + 7) / 8, n * channels);
  dwconv<<<grid, block>>>(x, w, y, channels, h, wd);
}
