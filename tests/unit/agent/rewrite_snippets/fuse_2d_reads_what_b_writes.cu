// test: kernel=relu_into2d rewrite=fuse-elementwise
// expect: refuses an array A reads may be one B writes
// The first kernel reads `y`, which the second writes: inside one fused
// kernel the first's value would be computed while other threads of the
// second already store into `y`.
#include <cuda_runtime.h>
__global__ void add2d(const float* a, const float* y, float* t, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols) t[r * cols + c] = a[r * cols + c] + y[(r * cols + c + 1) % (rows * cols)];
}
__global__ void relu_into2d(const float* t, float* y, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols) y[r * cols + c] = fmaxf(t[r * cols + c], 0.0f);
}
void run(const float* a, float* y, int rows, int cols) {
  float* t;
  cudaMalloc(&t, (size_t)rows * cols * sizeof(float));
  dim3 block(32, 8);
  dim3 grid((cols + 31) / 32, (rows + 7) / 8);
  add2d<<<grid, block>>>(a, y, t, rows, cols);
  relu_into2d<<<grid, block>>>(t, y, rows, cols);
  cudaFree(t);
}
