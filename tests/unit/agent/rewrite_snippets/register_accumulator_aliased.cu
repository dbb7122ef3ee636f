// test: kernel=accumulate rewrite=register-accumulator
// expect: refuses cannot rule out that another array of the loop is the accumulated one
// The launch passes `v` twice: `x[j]` may be `y[i]` itself, whose updates a
// register copy would hide.
#include <cuda_runtime.h>
__global__ void accumulate(const float* x, float* y, int m, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < m)
    for (int j = 0; j < n; ++j) y[i] += x[j];
}
void run(float* v, int m, int n) { accumulate<<<(m + 255) / 256, 256>>>(v, v, m, n); }
