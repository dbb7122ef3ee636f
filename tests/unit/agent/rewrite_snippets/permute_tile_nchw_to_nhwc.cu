// test: kernel=nchw_to_nhwc rewrite=permute-tile rows=16
// expect: applies
// expect-output: wl_tile[wl_r][threadIdx.x] = x[((n * C + c) * H + h) * W + w];
// expect-output: y[i] = wl_tile[threadIdx.x][wl_r] * scale;
// expect-launch: block=32,16,1
// expect-motivation: `(i / C) % W`
// NCHW -> NHWC with the sizes as parameters, one thread per output element
// (c fastest), a size_t index and element count, an early return, a uniform
// scale: the digit
// w = (i / C) % W steps the load by one element.
#include <cuda_runtime.h>
__global__ void nchw_to_nhwc(const float* __restrict__ x, float* __restrict__ y, int N, int C, int H, int W,
                             float scale, size_t total) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= total) return;
  int c = i % C;
  int w = (i / C) % W;
  int h = (i / ((size_t)C * W)) % H;
  int n = i / ((size_t)C * W * H);
  y[i] = x[((n * C + c) * H + h) * W + w] * scale;
}
void run(const float* x, float* y, int N, int C, int H, int W) {
  size_t total = (size_t)N * C * H * W;
  nchw_to_nhwc<<<(unsigned)((total + 255) / 256), 256>>>(x, y, N, C, H, W, 2.0f, total);
}
