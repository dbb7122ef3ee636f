// test: kernel=moving_sum rewrite=window-tile-1d block=256
// expect: applies
// expect-output: __shared__ float wl_tile[287];
// expect-launch: block=256,1,1
// A "valid" moving sum over 32 elements (no padding: the output is shorter
// than the input), the window loop written with `<=`.
#include <cuda_runtime.h>
__global__ void moving_sum(const float* __restrict__ in, float* __restrict__ out, int n_out) {
  int t = threadIdx.x + blockIdx.x * blockDim.x;
  if (t < n_out) {
    float s = 0.f;
    for (int k = 0; k <= 31; k++) s += in[t + k];
    out[t] = s;
  }
}
void run(const float* in, float* out, int n_out) {
  moving_sum<<<(n_out + 255) / 256, 256>>>(in, out, n_out);
}
