// test: kernel=add rewrite=block-size x=512
// expect: applies
// expect-output: dim3(512, 1, 1)
// expect-output: wl_launch::grid(
// expect-launch: kernel=add block=512,1,1 swap-xy=0
#include <cuda_runtime.h>
__global__ void add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
void run(const float* a, const float* b, float* c, int n) {
  const int threads = 256;
  add<<<(n + threads - 1) / threads, threads>>>(a, b, c, n);
}
