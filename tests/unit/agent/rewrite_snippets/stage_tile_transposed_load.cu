// test: kernel=gather_t rewrite=stage-shared-tile rows=16
// expect: applies
// expect-output: wl_tile[threadIdx.x][threadIdx.y + wl_r] = in[x * H + y];
// expect-output: 2.0f * wl_tile[threadIdx.y + wl_r][threadIdx.x]
// The load is the strided one here; the early-return guard form.
#include <cuda_runtime.h>
__global__ void gather_t(const float* in, float* out, int W, int H) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= W || y >= H) return;
  out[y * W + x] = 2.0f * in[x * H + y];
}
void run(const float* in, float* out, int W, int H) {
  gather_t<<<dim3((W + 31) / 32, (H + 7) / 8), dim3(32, 8)>>>(in, out, W, H);
}
