// test: kernel=skip_taps rewrite=window-tile
// expect: refuses a loop around the read is not `for (k = A; k < B; ++k)` with constant bounds
// The body advances the window counter itself: which taps are read is not
// the loop header's range.
#include <cuda_runtime.h>
__global__ void skip_taps(const float* __restrict__ in, float* __restrict__ out, int W, int H) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= W - 8 || y >= H) return;
  float s = 0.f;
  for (int k = 0; k < 8; ++k) {
    s += in[y * W + x + k];
    if (s > 4.f) ++k;
  }
  out[y * W + x] = s;
}
void run(const float* in, float* out, int W, int H) {
  dim3 block(32, 8), grid((W + 31) / 32, (H + 7) / 8);
  skip_taps<<<grid, block>>>(in, out, W, H);
}
