// softmax, one thread per row, an indexing macro and a C-style counter.
#include <cuda_runtime.h>
#define AT(p, r, c) (p)[(r) * (cols) + (c)]
__global__ void softmax_rows(const float* x, float* y, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  int c;
  if (r < rows) {
    float m = -1e30f;
    for (c = 0; c < cols; c++) m = fmaxf(m, AT(x, r, c));
    float s = 0.f;
    for (c = 0; c < cols; c++) s += expf(AT(x, r, c) - m);
    for (c = 0; c < cols; c++) AT(y, r, c) = expf(AT(x, r, c) - m) / s;
  }
}
void softmax(const float* x, float* y, int rows, int cols) { softmax_rows<<<(rows + 255) / 256, 256>>>(x, y, rows, cols); }
