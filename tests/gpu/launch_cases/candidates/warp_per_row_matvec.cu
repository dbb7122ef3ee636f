// warplens-launch: kernel=matvec_rows block=same swap-xy=0 scale=32/1,1/1,1/1 persistent=0
// Launch-change case: warp-per-row (what the built-in rewrite makes of
// matvec.cu): a whole warp per row, lanes stride the row, an xor-shuffle sum,
// lane 0 stores. Correct only when launched with 32x the threads.
#include <cstdio>

template <typename T>
__device__ __forceinline__ T wl_warp_sum(T v) {
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

__global__ void matvec_rows(const float* A, const float* x, float* y, int M, int N) {
  int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int wl_lane = static_cast<int>((blockIdx.x * blockDim.x + threadIdx.x) % 32);
  if (row < M) {
    float acc = 0.0f;
    for (int k = wl_lane; k < N; k += 32) acc += A[row * N + k] * x[k];
    acc = wl_warp_sum(acc);
    if (wl_lane == 0) y[row] = acc;
  }
}
