// test: kernel=jacobi rewrite=stencil-tile rows=8
// expect: applies
// expect-output: __shared__ float wl_tile[10][34];
// expect-output: wl_tile[threadIdx.y + 0][threadIdx.x + 1]
// expect-output: wl_tile[threadIdx.y + 1][threadIdx.x + 2]
// expect-output: wl_needed = x >= 1 && x < W - 1 && y >= 1 && y < H - 1;
// expect-launch: block=32,8,1 swap-xy=0 scale=1/1,1/1,1/1
// A 5-point Jacobi step: five reads of `in` around (x, y), interior points only.
#include <cuda_runtime.h>
__global__ void jacobi(const float* in, float* out, int W, int H) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= 1 && x < W - 1 && y >= 1 && y < H - 1) {
    int idx = y * W + x;
    out[idx] = 0.25f * (in[idx - 1] + in[idx + 1] + in[idx - W] + in[idx + W]) - in[idx];
  }
}
void run(const float* in, float* out, int W, int H) {
  dim3 block(16, 16), grid((W + 15) / 16, (H + 15) / 16);
  jacobi<<<grid, block>>>(in, out, W, H);
}
