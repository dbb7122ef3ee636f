// test: kernel=mean_over_seq rewrite=column-block lanes=16
// expect: applies
// expect-output: const T* xb = wl_active ? static_cast<const T*>(x + (long long)b * seq * dim) : static_cast<const T*>(0);
// expect-output: int b = blockIdx.y;
// expect-launch: block=32,16,1
// A template kernel batched over the grid's y (`int b = blockIdx.y`, blocks
// of one row): the batch index stays, the lanes take the block's y, and the
// locals keep the template's spelling (`T`, not the instantiation's float).
template <typename T>
__global__ void mean_over_seq(const T* x, T* out, int seq, int dim) {
  int d = blockIdx.x * blockDim.x + threadIdx.x;
  int b = blockIdx.y;
  if (d >= dim) return;
  const T* xb = x + (long long)b * seq * dim;
  T acc = 0;
  for (int t = 0; t < seq; ++t) acc += xb[(long long)t * dim + d];
  out[(long long)b * dim + d] = acc / (T)seq;
}
void run(const float* x, float* out, int batch, int seq, int dim) {
  dim3 grid((dim + 255) / 256, batch);
  mean_over_seq<float><<<grid, 256>>>(x, out, seq, dim);
}
