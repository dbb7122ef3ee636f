// test: kernel=pairwise_sqdist rewrite=tile-k-loop tile=16
// expect: applies
// expect-output: { const float d = wl_As[threadIdx.y][wl_kk] - wl_Bs[wl_kk][threadIdx.x]; acc += d * d; }
// The k loop's body declares a temporary from the two operands and
// accumulates a function of it (squared distances): the temporary is
// declared again where each pair of staged operands meets.
#include <cuda_runtime.h>
#define DIM 128
__global__ void pairwise_sqdist(const float* X, const float* Y, float* D, int nx, int ny) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < nx && j < ny) {
    float acc = 0.0f;
    for (int k = 0; k < DIM; k++) {
      float d = X[i * DIM + k] - Y[j * DIM + k];
      acc += d * d;
    }
    D[i * ny + j] = acc;
  }
}
void run(const float* X, const float* Y, float* D, int nx, int ny) {
  dim3 block(16, 16);
  dim3 grid((ny + 15) / 16, (nx + 15) / 16);
  pairwise_sqdist<<<grid, block>>>(X, Y, D, nx, ny);
}
