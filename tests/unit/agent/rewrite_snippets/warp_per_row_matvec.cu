// test: kernel=matvec rewrite=warp-per-row lanes=32 cache=0
// expect: applies
// expect-output: += 32
// expect-output: wl_warp_sum(acc)
// expect-output: if (wl_lane == 0) {
// expect-launch: scale=32/1,1/1,1/1
#include <cuda_runtime.h>
__global__ void matvec(const float* A, const float* x, float* y, int M, int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M) {
    float acc = 0.0f;
    for (int k = 0; k < N; ++k) acc += A[row * N + k] * x[k];
    y[row] = acc;
  }
}
void run(const float* A, const float* x, float* y, int M, int N) {
  matvec<<<(M + 255) / 256, 256>>>(A, x, y, M, N);
}
