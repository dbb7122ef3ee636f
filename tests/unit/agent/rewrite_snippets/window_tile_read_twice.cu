// test: kernel=local_contrast rewrite=window-tile
// expect: refuses it is read more than once inside the window loops
// Two reads of the input per window position (the tap and its mirror):
// each would need its own check of which cells are read; refused.
#include <cuda_runtime.h>
__global__ void local_contrast(const float* __restrict__ in, float* __restrict__ out, int W, int H) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 2 || y < 2 || x >= W - 2 || y >= H - 2) return;
  float s = 0.f;
  for (int k = -2; k <= 2; ++k) s += in[(y + k) * W + x] - in[(y - k) * W + x + 1];
  out[y * W + x] = s;
}
void run(const float* in, float* out, int W, int H) {
  dim3 block(32, 8), grid((W + 31) / 32, (H + 7) / 8);
  local_contrast<<<grid, block>>>(in, out, W, H);
}
