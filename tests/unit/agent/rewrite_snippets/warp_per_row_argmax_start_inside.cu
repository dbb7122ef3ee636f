// test: kernel=row_argmax rewrite=warp-per-row lanes=32 cache=0
// expect: refuses
// expect-error: does not start below its loop's first counter value
// The index starts at 0 and so does the loop: a lane whose first element
// ties the start value would report 0 where the loop reports its own index
// (with `>=`), so the pair is not provably combined the same way.
#include <cuda_runtime.h>
__global__ void row_argmax(const float* s, int* idx, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    int at = 0;
    float best = s[(size_t)r * cols];
    for (int j = 0; j < cols; ++j) {
      if (s[(size_t)r * cols + j] >= best) {
        best = s[(size_t)r * cols + j];
        at = j;
      }
    }
    idx[r] = at;
  }
}
void run(const float* s, int* i, int rows, int cols) { row_argmax<<<(rows + 127) / 128, 128>>>(s, i, rows, cols); }
