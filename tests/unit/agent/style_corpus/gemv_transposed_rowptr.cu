// y = A^T x with a thread per output column, a row pointer per step and a
// counter declared before the loop.
#include <cuda_runtime.h>
__global__ void gemv_t(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y, int M, int N) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < N) {
    float acc = 0.f;
    int i;
    for (i = 0; i < M; i++) {
      const float* row = A + (size_t)i * N;
      acc += row[j] * x[i];
    }
    y[j] = acc;
  }
}
void run(const float* A, const float* x, float* y, int M, int N) { gemv_t<<<(N + 255) / 256, 256>>>(A, x, y, M, N); }
