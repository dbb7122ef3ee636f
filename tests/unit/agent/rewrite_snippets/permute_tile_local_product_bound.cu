// test: kernel=nchw_to_nhwc rewrite=permute-tile rows=8
// expect: applies
// expect-output: const long long wl_n = (long long)(N * C * H * W);
// expect-launch: block=32,8,1
// The bound is a kernel local holding a four-factor product of parameters;
// the host computes the same product in another order through locals
// (hw, total) and launches ceil(total / 256) blocks.
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
  int hw = H * W;
  int total = N * hw * C;
  nchw_to_nhwc<<<(total + 255) / 256, 256>>>(x, y, N, C, H, W);
}
