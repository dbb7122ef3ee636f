// test: kernel=edge rewrite=stencil-tile rows=8
// expect: applies
// expect-output: const float h = x > 0 ? in[y * W + x - 1] : c;
// A read of `in` on only some paths (the left neighbour, when there is one)
// is not a tap: staged ahead of the work it would read in[y * W - 1] at
// x == 0, which the original never reads. It stays a memory read.
#include <cuda_runtime.h>
__global__ void edge(const float* in, float* out, int W, int H) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < W && y >= 1 && y < H - 1) {
    const float c = in[y * W + x];
    const float v = in[(y - 1) * W + x] + in[(y + 1) * W + x];
    const float h = x > 0 ? in[y * W + x - 1] : c;
    out[y * W + x] = 4.f * c - v - 2.f * h;
  }
}
void run(const float* in, float* out, int W, int H) {
  dim3 block(32, 8), grid((W + 31) / 32, (H + 7) / 8);
  edge<<<grid, block>>>(in, out, W, H);
}
