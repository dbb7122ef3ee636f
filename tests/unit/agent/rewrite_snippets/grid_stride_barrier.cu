// test: kernel=shift_block rewrite=grid-stride
// expect: refuses coordinates outside a global index variable
__global__ void shift_block(const float* in, float* out, int n) {
  __shared__ float s[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  if (i < n) out[i] = s[(threadIdx.x + 1) % 256];
}
void run(const float* in, float* out, int n) { shift_block<<<(n + 255) / 256, 256>>>(in, out, n); }
