// test: kernel=box_blur rewrite=window-tile rows=8
// expect: applies
// expect-output: if (wl_needed) wl_tile[wl_ty][wl_tx] = src[(long long)(w) * min(max((long long)wl_gy, (long long)(0)), (long long)(-1 + h)) + (long long)(1) * min(max((long long)wl_gx, (long long)(0)), (long long)(-1 + w))];
// expect-launch: block=32,8,1
// A 5x5 box blur whose edge is clamped (clamp-to-edge): every tap is read,
// at min(max(coordinate, 0), size - 1). The tile's cell for a coordinate
// holds the element the clamped read would read.
#include <cuda_runtime.h>
__global__ void box_blur(const float* src, float* dst, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float sum = 0.f;
  for (int j = -2; j <= 2; ++j) {
    for (int i = -2; i <= 2; ++i) {
      int xx = min(max(x + i, 0), w - 1);
      int yy = min(max(y + j, 0), h - 1);
      sum += src[yy * w + xx];
    }
  }
  dst[y * w + x] = sum / 25.f;
}
void run(const float* src, float* dst, int w, int h) {
  dim3 block(16, 16), grid((w + 15) / 16, (h + 15) / 16);
  box_blur<<<grid, block>>>(src, dst, w, h);
}
