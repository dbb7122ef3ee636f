// test: kernel=partials rewrite=reduction-grid-stride
// expect: refuses stores to global memory
// One output per block: the number of blocks is part of the result's shape.
__global__ void partials(const float* in, float* out, int n) {
  __shared__ float s[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}
void run(const float* in, float* out, int n) { partials<<<(n + 255) / 256, 256>>>(in, out, n); }
