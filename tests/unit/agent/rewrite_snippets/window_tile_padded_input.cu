// test: kernel=blur rewrite=window-tile rows=8
// expect: applies
// expect-output: __shared__ float wl_tile[12][36];
// expect-launch: block=32,8,1
// A 5x5 box blur over an input padded by two on every side (pitch W + 4):
// no checks in the window; every cell a working thread's window covers is
// loaded.
#include <cuda_runtime.h>
__global__ void blur(const float* __restrict__ padded, float* __restrict__ out, int W, int H) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < W && y < H) {
    float s = 0.f;
    for (int v = 0; v < 5; ++v)
      for (int u = 0; u < 5; ++u) s += padded[(y + v) * (W + 4) + x + u];
    out[y * W + x] = s * (1.f / 25.f);
  }
}
void run(const float* padded, float* out, int W, int H) {
  dim3 block(32, 4), grid((W + 31) / 32, (H + 3) / 4);
  blur<<<grid, block>>>(padded, out, W, H);
}
