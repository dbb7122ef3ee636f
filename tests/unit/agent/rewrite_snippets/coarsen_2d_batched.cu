// test: kernel=scale_planes rewrite=coarsen-2d width=4
// expect: applies
// expect-output: blockIdx.z
// A per-plane scale over a stack of images: blockIdx.z is the plane.
__global__ void scale_planes(const float* in, float* out, const float* gain, int W, int H) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int plane = blockIdx.z;
  if (x < W && y < H) {
    size_t i = ((size_t)plane * H + y) * W + x;
    out[i] = in[i] * gain[plane];
  }
}
void run(const float* in, float* out, const float* gain, int W, int H, int planes) {
  dim3 block(32, 8);
  dim3 grid((W + 31) / 32, (H + 7) / 8, planes);
  scale_planes<<<grid, block>>>(in, out, gain, W, H);
}
