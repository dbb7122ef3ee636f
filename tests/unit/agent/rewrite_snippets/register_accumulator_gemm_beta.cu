// test: kernel=gemm rewrite=register-accumulator
// expect: applies
// expect-output: float wl_acc = c[i * n + j] * (beta);
// expect-output: wl_acc += alpha * a[i * k + p] * b[p * n + j];
// expect-output: c[i * n + j] = wl_acc;
// expect-no-output: c[i * n + j] *= beta;
// BLAS style: scale C by beta, then accumulate into it. The scaling store
// just before the loop becomes the register's initial value.
#include <cuda_runtime.h>
__global__ void gemm(const float* a, const float* b, float* c, int m, int n, int k, float alpha, float beta) {
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < m && j < n) {
    c[i * n + j] *= beta;
    for (int p = 0; p < k; ++p) c[i * n + j] += alpha * a[i * k + p] * b[p * n + j];
  }
}
void run(const float* a, const float* b, float* c, int m, int n, int k) {
  dim3 block(16, 16), grid((n + 15) / 16, (m + 15) / 16);
  gemm<<<grid, block>>>(a, b, c, m, n, k, 1.0f, 0.5f);
}
