// HONEST (must pass): bigger blocks with __launch_bounds__; the grid is
// recomputed from the directive to cover the same threads.
// warplens: block=(256,1,1)
__global__ void __launch_bounds__(256) scale_add(const float* __restrict__ x, const float* __restrict__ y,
                                                 float* __restrict__ out, float alpha, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = fmaf(alpha, x[i], y[i]);
}
