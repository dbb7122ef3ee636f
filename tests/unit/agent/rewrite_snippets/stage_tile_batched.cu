// test: kernel=transpose_batch rewrite=stage-shared-tile rows=8
// expect: applies
// expect-output: blockIdx.z
// A batch of transposes: blockIdx.z picks the matrix.
__global__ void transpose_batch(const float* in, float* out, int W, int H) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  size_t base = (size_t)blockIdx.z * W * H;
  if (x < W && y < H) out[base + (size_t)x * H + y] = in[base + (size_t)y * W + x];
}
void run(const float* in, float* out, int W, int H, int batch) {
  dim3 block(32, 8);
  dim3 grid((W + 31) / 32, (H + 7) / 8, batch);
  transpose_batch<<<grid, block>>>(in, out, W, H);
}
