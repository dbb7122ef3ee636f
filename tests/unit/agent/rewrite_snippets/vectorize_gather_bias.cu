// test: kernel=bias_add rewrite=vectorize width=4 shrink-grid=1
// expect: applies
// expect-output: wl_out[wl_c] = wl_x[wl_c] + bias[i % cols];
// expect-launch: scale=1/4,1/1,1/1
// A per-column bias (a broadcast operand) stays a scalar read; x and out move
// in 16-byte accesses. The launch passes distinct pointers.
#include <cuda_runtime.h>
__global__ void bias_add(const float* x, const float* bias, float* out, int n, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = x[i] + bias[i % cols];
}
void run(const float* x, const float* b, float* out, int n, int cols) {
  bias_add<<<(n + 255) / 256, 256>>>(x, b, out, n, cols);
}
