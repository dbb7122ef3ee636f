// test: kernel=until_zero rewrite=pointer-walk
// expect: refuses the loop's header reads `p`
// The loop's condition reads the stepped pointer: with the step spelled
// from the counter inside the body, the condition would keep reading the
// first element.
#include <cuda_runtime.h>
__global__ void until_zero(const float* m, float* out, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  const float* p = m + c;
  float s = 0.0f;
  for (int r = 0; r < rows && *p != 0.0f; ++r) {
    s += *p;
    p += cols;
  }
  out[c] = s;
}
void run(const float* m, float* out, int rows, int cols) { until_zero<<<(cols + 127) / 128, 128>>>(m, out, rows, cols); }
