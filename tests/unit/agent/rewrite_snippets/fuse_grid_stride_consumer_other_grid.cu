// test: kernel=softplus_kernel rewrite=fuse-elementwise
// expect: applies
// expect-output: scale_rows_softplus_kernel_fused<<<blocks1, threads>>>(x, gain, t, n, cols, y, n);
// expect-output: /* softplus_kernel runs in scale_rows_softplus_kernel_fused above */
// The second kernel is a grid-stride loop launched on a fixed grid of its
// own; the first covers its bound ((n + threads - 1) / threads blocks). A
// grid-stride loop is right for any grid, so the fused kernel runs on the
// first launch's configuration.
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
  const int threads = 512;
  int blocks1 = (n + threads - 1) / threads;
  scale_rows<<<blocks1, threads>>>(x, gain, t, n, cols);
  int blocks2 = 4096;
  softplus_kernel<<<blocks2, threads>>>(t, y, n);
  cudaFree(t);
}
