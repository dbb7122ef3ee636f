// A 3-D heat-equation step written the common way: a thread per (i, j)
// column walking k through the interior planes, the flat index through a
// macro, the plane stride in a local. split-serial-loop spreads the planes
// over threads along z.
#include <cuda_runtime.h>
#define IDX(i, j, k) ((k) * plane + (j) * nx + (i))
__global__ void heat_step(const float* __restrict__ u, float* __restrict__ un, int nx, int ny, int nz, float r) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int j = blockIdx.y * blockDim.y + threadIdx.y;
  const int plane = nx * ny;
  if (i > 0 && j > 0 && i < nx - 1 && j < ny - 1) {
    for (int k = 1; k < nz - 1; ++k) {
      const float c = u[IDX(i, j, k)];
      const float lap = u[IDX(i - 1, j, k)] + u[IDX(i + 1, j, k)] + u[IDX(i, j - 1, k)] + u[IDX(i, j + 1, k)] +
                        u[IDX(i, j, k - 1)] + u[IDX(i, j, k + 1)] - 6.0f * c;
      un[IDX(i, j, k)] = c + r * lap;
    }
  }
}
void heat(const float* u, float* un, int nx, int ny, int nz, float r) {
  dim3 block(32, 8);
  dim3 grid((nx + block.x - 1) / block.x, (ny + block.y - 1) / block.y);
  heat_step<<<grid, block>>>(u, un, nx, ny, nz, r);
}
