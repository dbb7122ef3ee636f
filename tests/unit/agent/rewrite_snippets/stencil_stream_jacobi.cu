// test: kernel=jacobi rewrite=stencil-stream rows=4
// expect: applies
// expect-output: const int y = wl_y0 + 3;
// expect-output: wl_all_rows = wl_all_rows && (x >= 1 && x < W - 1 && y >= 1 && y < H - 1);
// expect-no-output: __shared__
// expect-launch: block=32,4,1 swap-xy=0 scale=1/1,1/4,1/1
// A 5-point Jacobi step on the interior with the linear index computed once:
// 4 rows per thread read 6 centre and 8 side elements instead of 20.
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
