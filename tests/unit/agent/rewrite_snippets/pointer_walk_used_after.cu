// test: kernel=column_last rewrite=pointer-walk
// expect: refuses used after the loop
// The pointer's final value is read after the loop: removing the step
// would change it.
#include <cuda_runtime.h>
__global__ void column_last(const float* m, float* out, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  const float* p = m + c;
  float s = 0.0f;
  for (int r = 0; r + 1 < rows; ++r) {
    s += *p;
    p += cols;
  }
  out[c] = s + *p;
}
void run(const float* m, float* out, int rows, int cols) { column_last<<<(cols + 127) / 128, 128>>>(m, out, rows, cols); }
