// test: kernel=transpose_diff2d rewrite=fuse-elementwise
// expect: refuses B reads the temporary other than at A's element of the same thread
// The second kernel reads the temporary transposed (`t[c * rows + r]`):
// another thread of the first kernel wrote that element, so A's value
// cannot be computed at this thread's (x, y).
#include <cuda_runtime.h>
__global__ void scale2d(const float* a, float* t, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols) t[r * cols + c] = 2.0f * a[r * cols + c];
}
__global__ void transpose_diff2d(const float* t, float* y, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols) y[r * cols + c] = t[c * rows + r] - t[r * cols + c];
}
void run(const float* a, float* y, int rows, int cols) {
  float* t;
  cudaMalloc(&t, (size_t)rows * cols * sizeof(float));
  dim3 block(16, 16);
  dim3 grid((cols + 15) / 16, (rows + 15) / 16);
  scale2d<<<grid, block>>>(a, t, rows, cols);
  transpose_diff2d<<<grid, block>>>(t, y, rows, cols);
  cudaFree(t);
}
