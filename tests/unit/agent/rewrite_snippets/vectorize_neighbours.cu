// test: kernel=diff rewrite=vectorize
// expect: refuses neither [i] nor the same for every thread
__global__ void diff(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n - 1) out[i] = in[i + 1] - in[i];
}
