// test: kernel=col_mean rewrite=column-block
// expect: refuses not provably 1 along y
// blockIdx.y is the batch, but the block comes from the caller: with threads
// along y, several per block would read the same batch, and a new y extent
// would change the grid's y.
__global__ void col_mean(const float* x, float* out, int seq, int dim) {
  int d = blockIdx.x * blockDim.x + threadIdx.x;
  int b = blockIdx.y;
  if (d >= dim) return;
  float acc = 0.f;
  for (int t = 0; t < seq; ++t) acc += x[((long long)b * seq + t) * dim + d];
  out[(long long)b * dim + d] = acc;
}
void run(const float* x, float* out, int batch, int seq, int dim, dim3 block) {
  col_mean<<<dim3((dim + 63) / 64, batch), block>>>(x, out, seq, dim);
}
