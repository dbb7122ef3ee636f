// test: kernel=row_argmax rewrite=warp-per-row lanes=32 cache=0
// expect: refuses
// expect-error: an accumulator is read
// The loop reads the index it keeps (a run length): not an arg-max.
#include <cuda_runtime.h>
__global__ void row_argmax(const float* s, int* idx, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    int at = -1;
    float best = -1e30f;
    for (int j = 0; j < cols; ++j) {
      if (s[(size_t)r * cols + j] > best + at) {
        best = s[(size_t)r * cols + j];
        at = j;
      }
    }
    idx[r] = at;
  }
}
void run(const float* s, int* i, int rows, int cols) { row_argmax<<<(rows + 127) / 128, 128>>>(s, i, rows, cols); }
