// test: kernel=rownorm rewrite=block-size x=128
// expect: refuses cannot prove that a launch's grid covers the bound
// The launch repeats in a loop that grows `rows` after it: from the second
// iteration on, the grid computed once before the loop is too small.
#include <cuda_runtime.h>
__global__ void rownorm(float* x, int rows) {
  int r = threadIdx.x + blockIdx.x * blockDim.x;
  if (r < rows) x[r] *= 0.5f;
}
int main() {
  int rows = 8192;
  float* x = nullptr;
  int blocks = (rows + 255) / 256;
  for (int it = 0; it < 3; ++it) {
    rownorm<<<blocks, 256>>>(x, rows);
    rows += 1000;
  }
  return 0;
}
