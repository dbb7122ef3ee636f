// test: kernel=blur rewrite=stencil-stream
// expect: refuses cannot rule out that the kernel writes the stencil's input
// The launch blurs in place: registers loaded early could hold stale values.
#include <cuda_runtime.h>
__global__ void blur(const float* in, float* out, int W, int H) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x > 0 && x < W - 1 && y > 0 && y < H - 1)
    out[y * W + x] = (in[(y - 1) * W + x] + in[y * W + x] + in[(y + 1) * W + x]) / 3.0f;
}
void run(float* img, int W, int H) {
  dim3 block(32, 8), grid((W + 31) / 32, (H + 7) / 8);
  blur<<<grid, block>>>(img, img, W, H);
}
