// y = A x, one thread per row, accumulating straight into y[i].
#include <cuda_runtime.h>
__global__ void matvec_acc(const float* a, const float* x, float* y, int m, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < m) {
    y[i] = 0.0f;
    for (int j = 0; j < n; j++) y[i] += a[i * n + j] * x[j];
  }
}
void matvec(const float* a, const float* x, float* y, int m, int n) { matvec_acc<<<(m + 255) / 256, 256>>>(a, x, y, m, n); }
