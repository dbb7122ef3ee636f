// The naive transpose of examples/optimize/transpose_naive.cu (its kernel and
// launch): the store is uncoalesced. tests/editors/fixtures holds the
// optimize result recorded for it on an H200, which the report view draws.
__global__ void transpose_naive(const float* in, float* out, int W, int H) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;  // column of `in`
  int y = blockIdx.y * blockDim.y + threadIdx.y;  // row of `in`
  if (x < W && y < H) {
    out[x * H + y] = in[y * W + x];
  }
}

void transpose(const float* in, float* out, int W, int H) {
  dim3 block(16, 16);
  dim3 grid((W + block.x - 1) / block.x, (H + block.y - 1) / block.y);
  transpose_naive<<<grid, block>>>(in, out, W, H);
}
