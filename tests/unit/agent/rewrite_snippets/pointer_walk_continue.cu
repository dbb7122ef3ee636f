// test: kernel=column_sum_positive rewrite=pointer-walk
// expect: refuses can skip the step
// A `continue` skips the step for negative elements: the pointer is then
// not its start plus one step per iteration.
#include <cuda_runtime.h>
__global__ void column_sum_positive(const float* m, float* out, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  const float* p = m + c;
  float s = 0.0f;
  for (int r = 0; r < rows; ++r) {
    if (*p < 0.0f) continue;
    s += *p;
    p += cols;
  }
  out[c] = s;
}
void run(const float* m, float* out, int rows, int cols) { column_sum_positive<<<(cols + 127) / 128, 128>>>(m, out, rows, cols); }
