// test: kernel=column_sums rewrite=pad-shared
// expect: refuses no padding is safe
// The tile is also read through a pointer, so its layout must not change.
__device__ float sum_row(const float* row) {
  float s = 0;
  for (int i = 0; i < 32; ++i) s += row[i];
  return s;
}
__global__ void column_sums(const float* in, float* out) {
  __shared__ float tile[32][32];
  for (int r = 0; r < 32; ++r) tile[r][threadIdx.x] = in[r * 32 + threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = tile[threadIdx.x][0] + sum_row(tile[threadIdx.x]);
}
