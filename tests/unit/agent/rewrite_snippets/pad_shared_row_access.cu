// test: kernel=row_copy rewrite=pad-shared
// expect: refuses no bank conflict
// Every warp reads one row: consecutive words, no conflict to remove.
__global__ void row_copy(const float* in, float* out) {
  __shared__ float tile[32][32];
  for (int r = 0; r < 32; ++r) tile[r][threadIdx.x] = in[r * 32 + threadIdx.x];
  __syncthreads();
  for (int r = 0; r < 32; ++r) out[r * 32 + threadIdx.x] = tile[r][threadIdx.x] * 2.0f;
}
void launch(const float* in, float* out) { row_copy<<<1, 32>>>(in, out); }
