// test: kernel=normalize_rows rewrite=warp-per-row lanes=32 cache=0
// expect: applies
// expect-output: for (int k = (0) + wl_lane; k < N; k += 32) y[row * N + k] = x[row * N + k] * scale;
// expect-output: __syncwarp();
// expect-output: ss = wl_warp_sum(ss);
// expect-launch: scale=32/1,1/1,1/1
// L2-normalise each row in place into y, then read y back for the row's new
// norm: the element-wise stores of other lanes must be visible (__syncwarp).
#include <cuda_runtime.h>
__global__ void normalize_rows(const float* x, float* y, float* norms, int M, int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= M) return;
  float ss = 0.0f;
  for (int k = 0; k < N; ++k) ss += x[row * N + k] * x[row * N + k];
  const float scale = ss > 0.0f ? rsqrtf(ss) : 0.0f;
  for (int k = 0; k < N; ++k) y[row * N + k] = x[row * N + k] * scale;
  float check = 0.0f;
  for (int k = 0; k < N; ++k) check += y[row * N + k] * y[row * N + k];
  norms[row] = check;
}
void run(const float* x, float* y, float* norms, int M, int N) {
  normalize_rows<<<(M + 127) / 128, 128>>>(x, y, norms, M, N);
}
