// test: kernel=column_sums rewrite=column-block lanes=32
// expect: applies
// expect-output: const bool wl_active = col < (cols);
// expect-output: const int wl_lane = static_cast<int>(threadIdx.y);
// expect-output: for (int r = (0) + wl_lane; r < rows; r += 32) sum += m[(size_t)r * cols + col];
// expect-output: sum = wl_column_sum(sum);
// expect-output: if (wl_active && wl_lane == 0) {
// expect-output: __shared__ T wl_part[1024];
// expect-launch: block=32,32,1
// expect-launch: scale=1/1,32/1,1/1
// A thread per column walking down the rows (early-return guard): blocks of
// 32 columns x 32 lanes; the guard becomes a flag so that every thread
// reaches the shared-memory combine.
#include <cuda_runtime.h>
__global__ void column_sums(const float* m, float* out, int rows, int cols) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col >= cols) return;
  float sum = 0.0f;
  for (int r = 0; r < rows; ++r) sum += m[(size_t)r * cols + col];
  out[col] = sum;
}
void run(const float* m, float* o, int rows, int cols) { column_sums<<<(cols + 127) / 128, 128>>>(m, o, rows, cols); }
