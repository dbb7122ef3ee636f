// 5-point Jacobi step on the interior, the linear index computed once.
#include <cuda_runtime.h>
__global__ void jacobi5(const float* in, float* out, int W, int H) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= 1 && x < W - 1 && y >= 1 && y < H - 1) {
    int idx = y * W + x;
    out[idx] = 0.25f * (in[idx - 1] + in[idx + 1] + in[idx - W] + in[idx + W]) - in[idx];
  }
}
void step(const float* in, float* out, int W, int H) {
  dim3 block(16, 16), grid((W + 15) / 16, (H + 15) / 16);
  jacobi5<<<grid, block>>>(in, out, W, H);
}
