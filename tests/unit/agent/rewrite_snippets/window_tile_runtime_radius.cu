// test: kernel=box rewrite=window-tile
// expect: refuses a loop around the read is not `for (k = A; k < B; ++k)` with constant bounds
// The window's size is a parameter: the tile's halo would not be known
// when the kernel is compiled.
#include <cuda_runtime.h>
__global__ void box(const float* __restrict__ in, float* __restrict__ out, int W, int H, int r) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= W || y >= H) return;
  float s = 0.f;
  for (int d = -r; d <= r; ++d) {
    int yy = y + d;
    if (yy < 0 || yy >= H) continue;
    s += in[yy * W + x];
  }
  out[y * W + x] = s;
}
void run(const float* in, float* out, int W, int H, int r) {
  dim3 block(32, 8), grid((W + 31) / 32, (H + 7) / 8);
  box<<<grid, block>>>(in, out, W, H, r);
}
