// test: kernel=row_argmax rewrite=inline-device-call
// expect: applies
// expect-output: v = wl_bv;
// expect-output: best_idx[r] = wl_argmax_of;
// A helper that returns the index and hands the value back through a
// pointer to the caller's local: the pointer becomes the local.
#include <cuda_runtime.h>
__device__ int argmax_of(const float* row, int n, float* best_val) {
  int best = 0;
  float bv = row[0];
  for (int j = 1; j < n; ++j) {
    float v = row[j];
    if (v > bv) {
      bv = v;
      best = j;
    }
  }
  *best_val = bv;
  return best;
}
__global__ void row_argmax(const float* scores, int* best_idx, float* best_val, unsigned rows, unsigned cols) {
  unsigned r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    const float* row = scores + (size_t)r * cols;
    float v;
    best_idx[r] = argmax_of(row, (int)cols, &v);
    best_val[r] = v;
  }
}
void run(const float* s, int* i, float* v, unsigned rows, unsigned cols) { row_argmax<<<(rows + 255) / 256, 256>>>(s, i, v, rows, cols); }
