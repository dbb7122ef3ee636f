// test: kernel=row_norms rewrite=warp-per-row lanes=8 cache=0 contiguous=1
// expect: applies
// expect-output: int r = (blockIdx.x * blockDim.x + threadIdx.x) / 8;
// expect-output: const int wl_lane = static_cast<int>((blockIdx.x * blockDim.x + threadIdx.x) % 8);
// expect-output: const unsigned wl_row_mask = 0x000000ffu << (threadIdx.x % 32 / 8 * 8);
// expect-output: for (int k = (0) + wl_lane; k < WIDTH; k += 8)
// expect-output: for (int offset = 4; offset >= 1; offset >>= 1) v += __shfl_xor_sync(mask, v, offset);
// expect-output: ss = wl_warp_sum(ss, wl_row_mask);
// expect-launch: scale=8/1,1/1,1/1
// expect-motivation: rows of 48 elements: 8 neighbouring lanes per row
// Rows of a compile-time width (48 floats), a thread per row: each row's
// sum of squares, then the row scaled by it. Eight neighbouring lanes per
// row keep the row's reads consecutive and each shuffle tree three steps
// deep; a warp handles four rows, each under its own mask.
#include <cuda_runtime.h>
#define WIDTH 48
__global__ void row_norms(const float* __restrict__ x, float* __restrict__ y, int rows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float* xr = x + (size_t)r * WIDTH;
  float ss = 0.0f;
  for (int k = 0; k < WIDTH; ++k) ss += xr[k] * xr[k];
  const float inv = rsqrtf(ss / WIDTH + 1e-6f);
  for (int k = 0; k < WIDTH; ++k) y[(size_t)r * WIDTH + k] = xr[k] * inv;
}
void run(const float* x, float* y, int rows) { row_norms<<<(rows + 255) / 256, 256>>>(x, y, rows); }
