// test: kernel=shifted rewrite=window-tile
// expect: refuses a clamp in the window read clamps more than the thread's coordinate and its window offset
// The clamp takes the row shifted by a parameter: the cell's row is not the
// thread's row plus a window offset, so the clamp cannot be moved onto the
// tile's cells.
#include <cuda_runtime.h>
__global__ void shifted(const float* __restrict__ src, float* __restrict__ dst, int w, int h, int s) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float sum = 0.f;
  for (int j = -1; j <= 1; ++j) sum += src[min(max(y + j + s, 0), h - 1) * w + x];
  dst[y * w + x] = sum;
}
void run(const float* src, float* dst, int w, int h, int s) {
  dim3 block(32, 8), grid((w + 31) / 32, (h + 7) / 8);
  shifted<<<grid, block>>>(src, dst, w, h, s);
}
