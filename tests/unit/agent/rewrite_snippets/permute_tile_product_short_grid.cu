// test: kernel=nchw_to_nhwc rewrite=permute-tile
// expect: refuses cannot prove that a launch's grid covers the bound
// The grid covers N * C * H threads, one factor short of the bound.
#include <cuda_runtime.h>
__global__ void nchw_to_nhwc(const float* x, float* y, int N, int C, int H, int W) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int total = N * C * H * W;
  if (i >= total) return;
  int c = i % C;
  int w = (i / C) % W;
  int h = (i / (C * W)) % H;
  int n = i / (C * W * H);
  y[i] = x[((n * C + c) * H + h) * W + w];
}
void run(const float* x, float* y, int N, int C, int H, int W) {
  int total = N * C * H;
  nchw_to_nhwc<<<(total + 255) / 256, 256>>>(x, y, N, C, H, W);
}
