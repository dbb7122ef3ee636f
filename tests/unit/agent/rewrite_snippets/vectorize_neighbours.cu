// test: kernel=diff rewrite=vectorize
// expect: refuses a gathered operand may be an array the kernel writes
// The neighbour `in[i + 1]` would stay a scalar read, but with no launch in
// the file nothing shows that `out` is not `in` shifted by one.
__global__ void diff(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n - 1) out[i] = in[i + 1] - in[i];
}
