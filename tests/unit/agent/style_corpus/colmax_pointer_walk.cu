// Column maxima with a pointer walked down the column (`q += width`).
#include <cuda_runtime.h>
__global__ void column_max(const float* img, float* out, int height, int width) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= width) return;
  const float* q = img + x;
  float best = -1e30f;
  for (int y = 0; y < height; y++) {
    best = fmaxf(best, *q);
    q += width;
  }
  out[x] = best;
}
void launch(const float* img, float* out, int height, int width) {
  column_max<<<(width + 255) / 256, 256>>>(img, out, height, width);
}
