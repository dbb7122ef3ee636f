// HONEST (must pass): the in-place axpy with __restrict__ pointers, fmaf and a
// grid-stride loop (the same grid: each thread still covers its element).
__global__ void axpy(float a, const float* __restrict__ x, float* __restrict__ y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) y[i] = fmaf(a, x[i], y[i]);
}
