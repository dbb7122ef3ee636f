// test: kernel=rownorm rewrite=block-size x=128
// expect: applies
// `rows` is assigned from argv before the grid is computed and passed:
// both read the same value, so the grid covers the bound.
#include <cuda_runtime.h>
#include <cstdlib>
__global__ void rownorm(float* x, int rows) {
  int r = threadIdx.x + blockIdx.x * blockDim.x;
  if (r < rows) x[r] *= 0.5f;
}
int main(int argc, char** argv) {
  int rows = 8192;
  if (argc > 1) rows = atoi(argv[1]);
  float* x = nullptr;
  int threads = 256;
  int blocks = (rows + threads - 1) / threads;
  rownorm<<<blocks, threads>>>(x, rows);
  return 0;
}
