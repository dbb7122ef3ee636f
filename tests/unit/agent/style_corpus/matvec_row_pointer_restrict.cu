// y = A x, one thread per row, a row pointer and a local sum.
#include <cuda_runtime.h>
__global__ void gemv(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y, int m, int n) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= m) return;
  const float* a = A + (size_t)row * n;
  float sum = 0.0f;
  for (int k = 0; k < n; ++k) sum += a[k] * x[k];
  y[row] = sum;
}
void run(const float* A, const float* x, float* y, int m, int n) { gemv<<<(m + 127) / 128, 128>>>(A, x, y, m, n); }
