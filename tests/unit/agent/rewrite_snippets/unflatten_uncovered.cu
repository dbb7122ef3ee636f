// test: kernel=scale2d rewrite=unflatten-index
// expect: refuses cannot prove that a launch's grid covers the bound
// The launch rounds the thread count down: the original skips the last
// elements, a 2-D grid sized from M and N would not.
#include <cuda_runtime.h>
__global__ void scale2d(float* x, int M, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < M * N) {
    int r = i / N;
    x[i] *= static_cast<float>(r);
  }
}
void run(float* x, int M, int N) { scale2d<<<M * N / 256, 256>>>(x, M, N); }
