// test: kernel=rownorm rewrite=block-size x=128
// expect: refuses cannot prove that a launch's grid covers the bound
// `rows` doubles after the grid was computed: the launch passes a bound
// the grid does not cover.
#include <cuda_runtime.h>
__global__ void rownorm(float* x, int rows) {
  int r = threadIdx.x + blockIdx.x * blockDim.x;
  if (r < rows) x[r] *= 0.5f;
}
int main() {
  int rows = 8192;
  float* x = nullptr;
  int threads = 256;
  int blocks = (rows + threads - 1) / threads;
  rows *= 2;
  rownorm<<<blocks, threads>>>(x, rows);
  return 0;
}
