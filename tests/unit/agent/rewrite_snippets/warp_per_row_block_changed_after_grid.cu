// test: kernel=row_mean rewrite=warp-per-row lanes=256 cache=0
// expect: refuses cannot prove that a launch's grid covers the bound
// The block size changes between computing the grid and launching: the grid
// was computed for another block, so nothing proves the rows are covered.
#include <cuda_runtime.h>
template <class T>
__host__ __device__ T ceil_div(T dividend, T divisor) {
  return (dividend + divisor - 1) / divisor;
}
__global__ void row_mean(float* out, const float* inp, int N, int C) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < N) {
    const float* x = inp + idx * C;
    float m = 0.0f;
    for (int i = 0; i < C; i++) m += x[i];
    out[idx] = m / C;
  }
}
void row_mean1(float* out, const float* inp, int N, int C, int block_size) {
  const int grid_size = ceil_div(N, block_size);
  block_size /= 2;
  row_mean<<<grid_size, block_size>>>(out, inp, N, C);
}
