// test: kernel=row_argmax rewrite=warp-per-row lanes=32 cache=0
// expect: applies
// expect-output: if (ov > v || (ov == v && oi < i)) {
// expect-output: wl_warp_argmax(best, at);
// expect-launch: scale=32/1,1/1,1/1
// Top-1 per row, a thread per row: the first largest score wins ties.
#include <cuda_runtime.h>
__global__ void row_argmax(const float* scores, int* idx, float* val, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    const float* row = scores + (size_t)r * cols;
    int at = 0;
    float best = row[0];
    for (int j = 1; j < cols; ++j) {
      float v = row[j];
      if (v > best) {
        best = v;
        at = j;
      }
    }
    idx[r] = at;
    val[r] = best;
  }
}
void run(const float* s, int* i, float* v, int rows, int cols) { row_argmax<<<(rows + 127) / 128, 128>>>(s, i, v, rows, cols); }
