// HONEST (must pass): the fp64 kernel with an explicit fma and a bigger block.
// warplens: block=(512,1,1)
__global__ void dscale_add(const double* x, const double* y, double* out, double alpha, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = fma(alpha, x[i], y[i]);
}
