// test: kernel=smooth_in_place rewrite=window-tile
// expect: refuses the kernel writes the stencil's input
// The blur writes the image it reads: a tile staged before the work would
// hold values some other thread may already have replaced.
#include <cuda_runtime.h>
__global__ void smooth_in_place(float* img, int W, int H) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= W - 1 || y >= H - 1) return;
  float s = 0.f;
  for (int j = -1; j <= 1; ++j)
    for (int i = -1; i <= 1; ++i) s += img[(y + j) * W + x + i];
  img[y * W + x] = s / 9.f;
}
void run(float* img, int W, int H) {
  dim3 block(32, 8), grid((W + 31) / 32, (H + 7) / 8);
  smooth_in_place<<<grid, block>>>(img, W, H);
}
