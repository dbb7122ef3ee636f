// test: kernel=column_norms rewrite=pointer-walk
// expect: applies
// expect-output: s += (p[(long long)(r - (0)) * (cols)]) * (p[(long long)(r - (0)) * (cols)]);
// expect-output: /* p += cols: spelled from `r` by warplens (pointer-walk) */;
// A column walked with a pointer stepped by the row length at the end of
// each iteration: the step goes, and each read is spelled from the counter.
#include <cuda_runtime.h>
__global__ void column_norms(const float* m, float* norms, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < cols) {
    const float* p = m + c;
    float s = 0.0f;
    for (int r = 0; r < rows; ++r) {
      s += (*p) * (*p);
      p += cols;
    }
    norms[c] = sqrtf(s);
  }
}
void run(const float* m, float* norms, int rows, int cols) { column_norms<<<(cols + 127) / 128, 128>>>(m, norms, rows, cols); }
