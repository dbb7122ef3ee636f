// test: kernel=pairs rewrite=warp-shuffle-reduction
// expect: refuses provably reduces the whole block
// The loop stops at 64: slot 0 holds a partial sum only.
__global__ void pairs(const float* in, float* out) {
  __shared__ float s[256];
  s[threadIdx.x] = in[blockIdx.x * 256 + threadIdx.x];
  __syncthreads();
  for (int k = 1; k < 64; k *= 2) {
    if (threadIdx.x % (2 * k) == 0) s[threadIdx.x] += s[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}
void run(const float* in, float* out, int blocks) { pairs<<<blocks, 256>>>(in, out); }
