// test: kernel=blur_planes_tile rewrite=stencil-tile rows=8
// expect: applies
// expect-output: blockIdx.z
// A 5-point blur of every plane of a stack: blockIdx.z is the plane.
__global__ void blur_planes_tile(const float* in, float* out, int W, int H) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  const float* p = in + (size_t)blockIdx.z * W * H;
  if (x >= 1 && y >= 1 && x < W - 1 && y < H - 1) {
    size_t i = (size_t)y * W + x;
    out[(size_t)blockIdx.z * W * H + i] = 0.2f * (p[i] + p[i - 1] + p[i + 1] + p[i - W] + p[i + W]);
  }
}
void run(const float* in, float* out, int W, int H, int planes) {
  dim3 block(32, 8);
  dim3 grid((W + 31) / 32, (H + 7) / 8, planes);
  blur_planes_tile<<<grid, block>>>(in, out, W, H);
}
