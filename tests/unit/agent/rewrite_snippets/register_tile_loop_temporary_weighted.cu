// test: kernel=weighted_sqdist rewrite=register-tile tile=64
// expect: refuses the accumulation reads memory besides its temporary
// The accumulation also reads a per-k weight: a third operand the register
// tile does not stage.
#include <cuda_runtime.h>
#define DIM 128
__global__ void weighted_sqdist(const float* X, const float* Y, const float* w, float* D, int nx, int ny) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < nx && j < ny) {
    float acc = 0.0f;
    for (int k = 0; k < DIM; k++) {
      float d = X[i * DIM + k] - Y[j * DIM + k];
      acc += w[k] * d * d;
    }
    D[i * ny + j] = acc;
  }
}
void run(const float* X, const float* Y, const float* w, float* D, int nx, int ny) {
  dim3 block(16, 16);
  dim3 grid((ny + 15) / 16, (nx + 15) / 16);
  weighted_sqdist<<<grid, block>>>(X, Y, w, D, nx, ny);
}
