// test: kernel=col_sums rewrite=column-block
// expect: refuses does not admit a block of 256 threads
// The author bounded the block at 128 threads: blocks of 32 x 8 (and more)
// would not launch, so none is proposed.
#include <cuda_runtime.h>
__global__ void __launch_bounds__(128) col_sums(const float* m, float* out, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  float s = 0.0f;
  for (int r = 0; r < rows; ++r) s += m[(size_t)r * cols + c];
  out[c] = s;
}
void run(const float* m, float* o, int rows, int cols) { col_sums<<<(cols + 127) / 128, 128>>>(m, o, rows, cols); }
