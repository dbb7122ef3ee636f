// test: kernel=decimate rewrite=window-tile-1d
// expect: refuses no input read inside loops with constant bounds
// Each output reads a window at twice its index (a strided, decimating
// filter): the windows of neighbouring threads do not slide by one, so
// there is no shared stretch to stage.
#include <cuda_runtime.h>
__global__ void decimate(const float* __restrict__ in, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = 0.f;
  for (int k = 0; k < 4; ++k) s += in[2 * i + k];
  out[i] = s;
}
void run(const float* in, float* out, int n) { decimate<<<(n + 255) / 256, 256>>>(in, out, n); }
