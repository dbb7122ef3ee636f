// test: kernel=row_sums rewrite=unroll factor=4
// expect: applies
// expect-output: #pragma unroll 4
__global__ void row_sums(const float* a, float* out, int cols) {
  int r = blockIdx.x;
  float s = 0;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) s += a[r * cols + c];
  atomicAdd(&out[r], s);
}
