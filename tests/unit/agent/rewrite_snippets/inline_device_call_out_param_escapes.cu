// test: kernel=k rewrite=inline-device-call
// expect: refuses whose address the kernel also takes elsewhere
// The local's address is also kept in `q`: the helper's store through its
// out-parameter could be seen through `q`, so `*p` cannot become `v`.
#include <cuda_runtime.h>
__device__ float split(float x, float* frac) {
  float w = floorf(x);
  *frac = x - w;
  return w;
}
__global__ void k(const float* in, float* whole, float* part, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = 0.f;
    float* q = &v;
    whole[i] = split(in[i], &v);
    part[i] = *q;
  }
}
void run(const float* a, float* b, float* c, int n) { k<<<(n + 255) / 256, 256>>>(a, b, c, n); }
