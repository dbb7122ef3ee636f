// test: kernel=row_sums rewrite=column-block
// expect: refuses no loop walks down columns
// A thread per row walking along its row: consecutive threads are a row
// apart, so 2-D column blocks would not help (warp-per-row is the rewrite).
#include <cuda_runtime.h>
__global__ void row_sums(const float* m, float* out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float s = 0.f;
    for (int c = 0; c < cols; ++c) s += m[r * cols + c];
    out[r] = s;
  }
}
void run(const float* m, float* o, int rows, int cols) { row_sums<<<(rows + 255) / 256, 256>>>(m, o, rows, cols); }
