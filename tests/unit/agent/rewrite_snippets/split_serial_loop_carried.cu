// test: kernel=row_sums rewrite=split-serial-loop
// expect: refuses the loop carries state in `acc`
// A running sum per row: the loop accumulates into a local declared before
// it and stores every prefix, so each iteration depends on the one before and
// they cannot be spread over threads.
#include <cuda_runtime.h>
__global__ void row_sums(const float* m, float* out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float acc = 0.0f;
  for (int c = 0; c < cols; ++c) {
    acc += m[r * cols + c];
    out[r * cols + c] = acc;
  }
}
void run(const float* m, float* o, int rows, int cols) { row_sums<<<(rows + 255) / 256, 256>>>(m, o, rows, cols); }
