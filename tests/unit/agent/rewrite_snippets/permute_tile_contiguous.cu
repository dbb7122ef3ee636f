// test: kernel=shift rewrite=permute-tile
// expect: refuses not a sum of the index's digits
// A gather that is already contiguous along the warp (in[i + off]): no
// tile to stage.
#include <cuda_runtime.h>
__global__ void shift(const float* in, float* out, int n, int off) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[(i + off) % n];
}
void run(const float* in, float* out, int n) { shift<<<(n + 255) / 256, 256>>>(in, out, n, 3); }
