// test: kernel=row_pairs rewrite=pointer-walk
// expect: applies
// expect-output: acc += p[(long long)(k - (1)) * (2) + (0)] * p[(long long)(k - (1)) * (2) + (1)];
// `p = p + 2` with subscripted uses and a loop that starts at 1: each
// subscript gains the counter's offset from the start.
#include <cuda_runtime.h>
__global__ void row_pairs(const float* x, float* out, int n, int pairs) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float* p = x + (size_t)i * 2 * pairs;
  float acc = 0.0f;
  for (int k = 1; k <= pairs; ++k) {
    acc += p[0] * p[1];
    p = p + 2;
  }
  out[i] = acc;
}
void run(const float* x, float* out, int n, int pairs) { row_pairs<<<(n + 255) / 256, 256>>>(x, out, n, pairs); }
