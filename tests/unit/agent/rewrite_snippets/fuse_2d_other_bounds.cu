// test: kernel=relu2d rewrite=fuse-elementwise
// expect: refuses the launches do not pass `cols` the same value in both kernels
// The two launches pass different column counts: the second kernel's
// (x, y) does not name the element the first kernel's (x, y) wrote.
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
void run(const float* a, const float* b, float* y, int rows, int cols, int half) {
  float* t;
  cudaMalloc(&t, (size_t)rows * cols * sizeof(float));
  dim3 block(32, 8);
  dim3 grid((cols + 31) / 32, (rows + 7) / 8);
  add2d<<<grid, block>>>(a, b, t, rows, cols);
  relu2d<<<grid, block>>>(t, y, rows, half);
  cudaFree(t);
}
