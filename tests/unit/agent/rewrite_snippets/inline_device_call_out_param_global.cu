// test: kernel=k rewrite=inline-device-call
// expect: refuses whose argument is not `&` of a local variable
// The out-parameter points into global memory: its store is a store to
// memory the rest of the statement may read, so the helper is not moved.
#include <cuda_runtime.h>
__device__ float split(float x, float* frac) {
  float w = floorf(x);
  *frac = x - w;
  return w;
}
__global__ void k(const float* in, float* whole, float* part, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    whole[i] = split(in[i], &part[i]);
  }
}
void run(const float* a, float* b, float* c, int n) { k<<<(n + 255) / 256, 256>>>(a, b, c, n); }
