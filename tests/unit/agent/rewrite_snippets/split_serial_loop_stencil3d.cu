// test: kernel=stencil7 rewrite=split-serial-loop splits=8
// expect: applies
// expect-launch: scale=1/1,1/1,8/1
// A 7-point 3-D stencil with a thread per (x, y) walking z, the index through
// a helper, the counter declared before the loop, interior points only: the
// planes are shared by 8 threads along z; the store's step in z (nx * ny) is
// checked at run time.
#include <cuda_runtime.h>
__device__ inline int at(int x, int y, int z, int nx, int ny) { return (z * ny + y) * nx + x; }
__global__ void stencil7(const float* in, float* out, int nx, int ny, int nz, float c0, float c1) {
  int x = threadIdx.x + blockIdx.x * blockDim.x;
  int y = threadIdx.y + blockIdx.y * blockDim.y;
  if (x < 1 || y < 1 || x >= nx - 1 || y >= ny - 1) return;
  int z;
  for (z = 1; z < nz - 1; z++) {
    float v = c0 * in[at(x, y, z, nx, ny)] +
              c1 * (in[at(x - 1, y, z, nx, ny)] + in[at(x + 1, y, z, nx, ny)] + in[at(x, y - 1, z, nx, ny)] +
                    in[at(x, y + 1, z, nx, ny)] + in[at(x, y, z - 1, nx, ny)] + in[at(x, y, z + 1, nx, ny)]);
    out[at(x, y, z, nx, ny)] = v;
  }
}
void run(const float* in, float* out, int nx, int ny, int nz) {
  dim3 block(32, 4);
  dim3 grid((nx + 31) / 32, (ny + 3) / 4);
  stencil7<<<grid, block>>>(in, out, nx, ny, nz, 0.4f, 0.1f);
}
