// test: kernel=transpose rewrite=stage-shared-tile rows=8
// expect: applies
// expect-output: __shared__ float wl_tile[32][33];
// expect-output: out[x * H + y] = wl_tile[threadIdx.x][threadIdx.y + wl_r];
// expect-launch: block=32,8,1 swap-xy=0 scale=1/1,1/4,1/1
#include <cuda_runtime.h>
__global__ void transpose(const float* in, float* out, int W, int H) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < W && y < H) out[x * H + y] = in[y * W + x];
}
void run(const float* in, float* out, int W, int H) {
  dim3 block(16, 16);
  dim3 grid((W + block.x - 1) / block.x, (H + block.y - 1) / block.y);
  transpose<<<grid, block>>>(in, out, W, H);
}
