// test: kernel=blur_row rewrite=window-tile rows=8
// expect: applies
// expect-output: ((long long)wl_gx < (long long)(0) ? (long long)(0) : ((long long)wl_gx > (long long)(-1 + width) ? (long long)(-1 + width) : (long long)wl_gx))
// expect-output: __shared__ float wl_tile[8][38];
// expect-launch: block=32,8,1
// A 7-tap row blur whose edge is clamped by a helper written with
// conditionals: the helper is inlined by the analysis, and the tile's
// cells are loaded through the same conditional chain.
#include <cuda_runtime.h>
__device__ __forceinline__ int clamp_to(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }
__global__ void blur_row(const float* in, float* out, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) {
    float s = 0.f;
    for (int k = -3; k <= 3; ++k) s += in[y * width + clamp_to(x + k, 0, width - 1)];
    out[y * width + x] = s * (1.f / 7.f);
  }
}
void run(const float* in, float* out, int width, int height) {
  dim3 block(32, 8), grid((width + 31) / 32, (height + 7) / 8);
  blur_row<<<grid, block>>>(in, out, width, height);
}
