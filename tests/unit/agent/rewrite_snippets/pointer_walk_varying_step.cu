// test: kernel=triangle_walk rewrite=pointer-walk
// expect: refuses changes between iterations
// The step grows with the counter (`p += r`): the pointer is not its start
// plus (r - 0) equal steps.
#include <cuda_runtime.h>
__global__ void triangle_walk(const float* m, float* out, int rows) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= rows) return;
  const float* p = m + c;
  float s = 0.0f;
  for (int r = 0; r < rows; ++r) {
    s += *p;
    p += r;
  }
  out[c] = s;
}
void run(const float* m, float* out, int rows) { triangle_walk<<<(rows + 127) / 128, 128>>>(m, out, rows); }
