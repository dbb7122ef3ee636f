// test: kernel=column_sums rewrite=warp-per-row lanes=4 cache=0
// expect: applies
// expect-output: int col = (blockIdx.x * blockDim.x + threadIdx.x) / 32 * 8 + (blockIdx.x * blockDim.x + threadIdx.x) % 8;
// expect-output: const int wl_lane = static_cast<int>((blockIdx.x * blockDim.x + threadIdx.x) % 32 / 8);
// expect-output: const unsigned wl_row_mask = 0x01010101u << (threadIdx.x % 8);
// expect-output: for (int r = (0) + wl_lane; r < rows; r += 4)
// expect-output: sum = wl_warp_sum(sum, wl_row_mask);
// expect-output: for (int offset = 16; offset >= 8; offset >>= 1) v += __shfl_xor_sync(mask, v, offset);
// expect-output: if (wl_lane == 0) {
// expect-launch: scale=4/1,1/1,1/1
// expect-motivation: gets 4 lanes, 8 columns per warp
// A thread per column walking down the rows: coalesced across the warp
// already, but with few columns there are few threads. Four lanes per
// column, eight columns per warp: each step reads one 32-byte sector per
// row, and the column's total meets in a shuffle over its own four lanes.
#include <cuda_runtime.h>
__global__ void column_sums(const float* m, float* out, int rows, int cols) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col >= cols) return;
  float sum = 0.0f;
  for (int r = 0; r < rows; ++r) sum += m[(size_t)r * cols + col];
  out[col] = sum;
}
void run(const float* m, float* o, int rows, int cols) { column_sums<<<(cols + 127) / 128, 128>>>(m, o, rows, cols); }
