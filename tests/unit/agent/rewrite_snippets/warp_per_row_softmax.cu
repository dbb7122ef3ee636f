// test: kernel=softmax_rows rewrite=warp-per-row lanes=32 cache=0
// expect: applies
// expect-output: mx = wl_warp_max(mx);
// expect-output: sum = wl_warp_sum(sum);
// expect-output: if (wl_lane != 0) sum = 0;
// expect-output: for (int k = (0) + wl_lane; k < N; k += 32) y[row * N + k] = expf(x[row * N + k] - mx) * inv;
// expect-launch: scale=32/1,1/1,1/1
// Row-wise softmax, one thread per row: a max, a sum, then an element-wise pass.
#include <cuda_runtime.h>
#include <math.h>
__global__ void softmax_rows(const float* x, float* y, int M, int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= M) return;
  float mx = -INFINITY;
  for (int k = 0; k < N; ++k) mx = fmaxf(mx, x[row * N + k]);
  float sum = 0.0f;
  for (int k = 0; k < N; ++k) sum += expf(x[row * N + k] - mx);
  const float inv = 1.0f / sum;
  for (int k = 0; k < N; ++k) y[row * N + k] = expf(x[row * N + k] - mx) * inv;
}
void run(const float* x, float* y, int M, int N) { softmax_rows<<<(M + 127) / 128, 128>>>(x, y, M, N); }
