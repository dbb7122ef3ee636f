// test: kernel=shift rewrite=restrict-const
// expect: refuses for two pointer parameters
// The same buffer is passed as input and output: __restrict__ would be a lie.
__global__ void shift(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i + 1 < n) out[i] = in[i + 1];
}
void run(float* d, int n) { shift<<<(n + 255) / 256, 256>>>(d, d, n); }
