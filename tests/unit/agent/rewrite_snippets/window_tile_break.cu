// test: kernel=first_hit rewrite=window-tile
// expect: refuses the window loops leave early other than by `if (...) continue;` before the read
// A break after the read ends the window early, depending on the values
// read: later taps may never be read, so no tile.
#include <cuda_runtime.h>
__global__ void first_hit(const float* __restrict__ in, float* __restrict__ out, int W, int H) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= W - 4 || y >= H) return;
  float s = 0.f;
  for (int i = 0; i < 5; ++i) {
    s += in[y * W + x + i];
    if (s > 1.f) break;
  }
  out[y * W + x] = s;
}
void run(const float* in, float* out, int W, int H) {
  dim3 block(32, 8), grid((W + 31) / 32, (H + 7) / 8);
  first_hit<<<grid, block>>>(in, out, W, H);
}
