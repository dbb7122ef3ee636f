// test: kernel=scale_rows rewrite=split-serial-loop splits=4
// expect: applies
// A thread per row of a fixed-width matrix scaling its 64 elements, inside
// the guard's braces: the step of the store in c is the constant 1, so no
// run-time check is needed.
#include <cuda_runtime.h>
__global__ void scale_rows(const float* __restrict__ a, const float* __restrict__ s, float* __restrict__ out, int rows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    const float k = s[r];
    for (int c = 0; c < 64; ++c) out[r * 64 + c] = a[r * 64 + c] * k;
  }
}
void run(const float* a, const float* s, float* out, int rows) { scale_rows<<<(rows + 127) / 128, 128>>>(a, s, out, rows); }
