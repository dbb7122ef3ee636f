// test: kernel=clip rewrite=stencil-stream
// expect: refuses a return inside the element's work
// A return inside the work would end all of a thread's rows, not one.
#include <cuda_runtime.h>
__global__ void clip(const float* __restrict__ in, float* __restrict__ out, int W, int H) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x > 0 && x < W - 1 && y > 0 && y < H - 1) {
    const float c = in[y * W + x];
    const float d = in[(y - 1) * W + x] - in[(y + 1) * W + x];
    if (d == 0.f) return;
    out[y * W + x] = c / d;
  }
}
void run(const float* in, float* out, int W, int H) {
  dim3 block(32, 8), grid((W + 31) / 32, (H + 7) / 8);
  clip<<<grid, block>>>(in, out, W, H);
}
