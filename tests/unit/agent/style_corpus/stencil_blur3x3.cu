// 3x3 box blur on the interior, neighbours spelled with x +/- 1 and y +/- 1, early return.
#include <cuda_runtime.h>
__global__ void blur3x3(const float* __restrict__ src, float* __restrict__ dst, int width, int height) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= width - 1 || y >= height - 1) return;
  float s = 0.f;
  s += src[(y - 1) * width + x - 1] + src[(y - 1) * width + x] + src[(y - 1) * width + x + 1];
  s += src[y * width + x - 1] + src[y * width + x] + src[y * width + x + 1];
  s += src[(y + 1) * width + x - 1] + src[(y + 1) * width + x] + src[(y + 1) * width + x + 1];
  dst[y * width + x] = s * (1.0f / 9.0f);
}
void run(const float* s, float* d, int w, int h) {
  dim3 block(32, 8), grid((w + 31) / 32, (h + 7) / 8);
  blur3x3<<<grid, block>>>(s, d, w, h);
}
