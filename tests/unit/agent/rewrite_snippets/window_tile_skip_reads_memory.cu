// test: kernel=masked_conv rewrite=window-tile
// expect: refuses `mask`: the statement reading the window may leave the loop
// Whether a tap is read depends on a mask in memory: which cells the
// original reads cannot be told without reading the mask, so no tile.
#include <cuda_runtime.h>
__global__ void masked_conv(const float* __restrict__ in, const unsigned char* __restrict__ mask,
                            float* __restrict__ out, int W, int H) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= W - 1 || y >= H - 1) return;
  float s = 0.f;
  for (int j = -1; j <= 1; ++j)
    for (int i = -1; i <= 1; ++i) {
      if (mask[(y + j) * W + x + i]) continue;
      s += in[(y + j) * W + x + i];
    }
  out[y * W + x] = s;
}
void run(const float* in, const unsigned char* mask, float* out, int W, int H) {
  dim3 block(32, 8), grid((W + 31) / 32, (H + 7) / 8);
  masked_conv<<<grid, block>>>(in, mask, out, W, H);
}
