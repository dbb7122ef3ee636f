// test: kernel=relax rewrite=stencil-stream
// expect: refuses a return inside the element's work
// After the edge branch, another early return would end all of a thread's
// rows, not one: refused, although the edge branch's own return is handled.
#include <cuda_runtime.h>
__global__ void relax(const float* __restrict__ u, float* __restrict__ v, int nx, int ny) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= nx || y >= ny) return;
  int at = y * nx + x;
  if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) {
    v[at] = 0.f;
    return;
  }
  float s = u[at - 1] + u[at + 1] + u[at - nx] + u[at + nx];
  if (s == 0.f) return;
  v[at] = u[at] / s;
}
void run(const float* u, float* v, int nx, int ny) {
  dim3 block(32, 8), grid((nx + 31) / 32, (ny + 7) / 8);
  relax<<<grid, block>>>(u, v, nx, ny);
}
