// test: kernel=relax rewrite=stencil-tile rows=8
// expect: applies
// expect-output: wl_needed = (!(i >= nx || j >= ny)) && !(i == 0 || j == 0 || i == nx - 1 || j == ny - 1);
// expect-output: u_next[at] = u[at];
// expect-launch: block=32,8,1
// The boundary copy's read stays a memory read; a tile cell is loaded only
// where an interior thread reads it.
#include <cuda_runtime.h>
__global__ void relax(const float* u, const float* rhs, float* u_next, int nx, int ny, float h2) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= nx || j >= ny) return;
  size_t at = (size_t)j * nx + i;
  if (i == 0 || j == 0 || i == nx - 1 || j == ny - 1) {
    u_next[at] = u[at];
    return;
  }
  float around = u[at - 1] + u[at + 1] + u[at - nx] + u[at + nx];
  u_next[at] = 0.25f * (around + h2 * rhs[at]);
}
void run(const float* u, const float* rhs, float* u_next, int nx, int ny, float h2) {
  dim3 block(32, 16);
  dim3 grid((nx + 31) / 32, (ny + 15) / 16);
  relax<<<grid, block>>>(u, rhs, u_next, nx, ny, h2);
}
