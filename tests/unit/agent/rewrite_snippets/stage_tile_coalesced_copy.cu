// test: kernel=copy2d rewrite=stage-shared-tile
// expect: refuses no transposed access pair
__global__ void copy2d(const float* in, float* out, int W, int H) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < W && y < H) out[y * W + x] = in[y * W + x];
}
void run(const float* in, float* out, int W, int H) {
  copy2d<<<dim3((W + 15) / 16, (H + 15) / 16), dim3(16, 16)>>>(in, out, W, H);
}
