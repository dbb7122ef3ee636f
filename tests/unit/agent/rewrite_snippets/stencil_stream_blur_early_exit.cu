// test: kernel=blur3x3 rewrite=stencil-stream rows=8
// expect: applies
// expect-output: wl_all_rows = wl_all_rows && (!(x < 1 || y < 1 || x >= w - 1 || y >= h - 1));
// expect-launch: block=32,4,1 swap-xy=0 scale=1/1,1/8,1/1
// A 3x3 box blur written with an early return and size_t offsets: nine taps,
// the rows above and below each output shared with its neighbours' rows.
#include <cuda_runtime.h>
#include <cstddef>
__global__ void blur3x3(const float* __restrict__ src, float* __restrict__ dst, int w, int h) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1) return;
  const size_t row = (size_t)y * w;
  float s = 0.f;
  s += src[row - w + x - 1] + src[row - w + x] + src[row - w + x + 1];
  s += src[row + x - 1] + src[row + x] + src[row + x + 1];
  s += src[row + w + x - 1] + src[row + w + x] + src[row + w + x + 1];
  dst[row + x] = s * (1.0f / 9.0f);
}
void launch(const float* src, float* dst, int w, int h) {
  dim3 block(32, 8);
  dim3 grid((w + block.x - 1) / block.x, (h + block.y - 1) / block.y);
  blur3x3<<<grid, block>>>(src, dst, w, h);
}
