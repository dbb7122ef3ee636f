// test: kernel=block_max rewrite=warp-shuffle-reduction
// expect: applies
// expect-output: fmaxf(wl_v, __shfl_down_sync(
// Sequential addressing, a max instead of a sum, a per-block output.
__global__ void block_max(const float* in, float* out, int n) {
  __shared__ float m[512];
  int t = threadIdx.x;
  int i = blockIdx.x * blockDim.x + t;
  m[t] = i < n ? in[i] : -1e30f;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) m[t] = fmaxf(m[t], m[t + s]);
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = m[0];
}
void run(const float* in, float* out, int n) { block_max<<<(n + 511) / 512, 512>>>(in, out, n); }
