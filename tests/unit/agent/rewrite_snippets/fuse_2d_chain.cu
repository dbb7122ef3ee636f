// test: kernel=relu2d rewrite=fuse-elementwise
// expect: applies
// expect-output: add2d_relu2d_fused<<<grid, block>>>(a, b, t, rows, cols, y, rows, cols);
// expect-output: y[r * cols + c] = fmaxf((wl_a_a[r * wl_a_cols + c] + wl_a_b[r * wl_a_cols + c]), 0.0f);
// Two 2-D kernels over the same (x, y) with the same configuration: the
// first writes t[r * cols + c], the second reads it back at the same
// element of the same thread, so the second computes the first's value
// where it read it.
#include <cuda_runtime.h>
__global__ void add2d(const float* a, const float* b, float* t, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols) t[r * cols + c] = a[r * cols + c] + b[r * cols + c];
}
__global__ void relu2d(const float* t, float* y, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols) y[r * cols + c] = fmaxf(t[r * cols + c], 0.0f);
}
void run(const float* a, const float* b, float* y, int rows, int cols) {
  float* t;
  cudaMalloc(&t, (size_t)rows * cols * sizeof(float));
  dim3 block(32, 8);
  dim3 grid((cols + 31) / 32, (rows + 7) / 8);
  add2d<<<grid, block>>>(a, b, t, rows, cols);
  relu2d<<<grid, block>>>(t, y, rows, cols);
  cudaFree(t);
}
