// test: kernel=matvec_acc rewrite=register-accumulator
// expect: applies
// expect-output: float wl_acc = (0) < (n) ? y[i] : static_cast<float>(0);
// expect-output: for (int j = 0; j < n; ++j) wl_acc += a[i * n + j] * x[j];
// expect-output: if ((0) < (n)) y[i] = wl_acc;
// expect-no-output: y[i] +=
// The sum goes straight into global memory: a load and a store of y[i] on
// every iteration. Distinct pointers at the launch: nothing else in the loop
// reaches y[i].
#include <cuda_runtime.h>
__global__ void matvec_acc(const float* a, const float* x, float* y, int m, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < m) {
    for (int j = 0; j < n; ++j) y[i] += a[i * n + j] * x[j];
  }
}
void run(const float* a, const float* x, float* y, int m, int n) {
  matvec_acc<<<(m + 255) / 256, 256>>>(a, x, y, m, n);
}
