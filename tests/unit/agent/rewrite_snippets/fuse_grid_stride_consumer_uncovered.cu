// test: kernel=softplus_kernel rewrite=fuse-elementwise
// expect: refuses the two launches differ in grid, block, shared memory or stream
// The first kernel is launched on a fixed grid that nothing proves covers
// n: it may leave elements of the temporary unwritten, so the second
// kernel's reads cannot be replaced by the first kernel's value.
#include <cuda_runtime.h>
__global__ void scale_rows(const float* x, const float* gain, float* t, int n, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) t[i] = x[i] * gain[i / cols];
}
__global__ void softplus_kernel(const float* t, float* y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = log1pf(expf(t[i]));
}
void run(const float* x, const float* gain, float* y, int n, int cols) {
  float* t;
  cudaMalloc(&t, n * sizeof(float));
  scale_rows<<<1024, 256>>>(x, gain, t, n, cols);
  softplus_kernel<<<4096, 512>>>(t, y, n);
  cudaFree(t);
}
