// test: kernel=conv_clamp rewrite=window-tile
// expect: refuses the read is under an `if` whose condition reads memory, has effects, names locals the window does not define, or has an else
// The out-of-image taps take another value in an else: the tile would need
// the else's value too; refused rather than guessed.
#include <cuda_runtime.h>
__global__ void conv_clamp(const float* __restrict__ in, float* __restrict__ out, int W, int H) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= W || y >= H) return;
  float s = 0.f;
  for (int d = -2; d <= 2; ++d) {
    int xx = x + d;
    if (xx >= 0 && xx < W)
      s += in[y * W + xx];
    else
      s += 1.f;
  }
  out[y * W + x] = s;
}
void run(const float* in, float* out, int W, int H) {
  dim3 block(32, 8), grid((W + 31) / 32, (H + 7) / 8);
  conv_clamp<<<grid, block>>>(in, out, W, H);
}
