// test: kernel=row_mean rewrite=warp-per-row lanes=256 cache=0
// expect: applies
// expect-output: wl_launch::grid(dim3(grid_size), dim3(block_size), dim3(256, 1, 1), false, 256, 1
// The launch form of much real code (llm.c's dev/cuda among it): the block
// size is the launching function's parameter and the grid comes from a
// ceil_div helper. grid * block_size >= N holds for any block size, so the
// rows are covered.
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
void row_mean1(float* out, const float* inp, int N, int C, const int block_size) {
  const int grid_size = ceil_div(N, block_size);
  row_mean<<<grid_size, block_size>>>(out, inp, N, C);
}
