// test: kernel=stage rewrite=block-size
// expect: refuses coordinates outside a global index variable
__global__ void stage(const float* a, float* c, int n) {
  __shared__ float buf[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  buf[threadIdx.x] = i < n ? a[i] : 0.0f;
  __syncthreads();
  if (i < n) c[i] = buf[255 - threadIdx.x];
}
void run(const float* a, float* c, int n) { stage<<<(n + 255) / 256, 256>>>(a, c, n); }
