// test: kernel=masked rewrite=stencil-stream
// expect: refuses no input read on every path at three or more fixed offsets around (x, y) with one row pitch
// An early return whose condition reads memory (a mask) is no edge branch:
// which threads read the neighbours depends on data, so the reads after it
// are not taps.
#include <cuda_runtime.h>
__global__ void masked(const float* u, const unsigned char* mask, float* out, int nx, int ny) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= nx - 1 || y >= ny - 1) return;
  int at = y * nx + x;
  if (mask[at]) {
    out[at] = 0.f;
    return;
  }
  out[at] = u[at - 1] + u[at + 1] + u[at - nx] + u[at + nx] - 4.f * u[at];
}
void run(const float* u, const unsigned char* mask, float* out, int nx, int ny) {
  dim3 block(32, 8), grid((nx + 31) / 32, (ny + 7) / 8);
  masked<<<grid, block>>>(u, mask, out, nx, ny);
}
