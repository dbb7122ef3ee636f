// test: kernel=k rewrite=inline-device-call
// expect: refuses `bump` stores outside its locals
// A helper that writes memory is not moved: its store could meet reads of
// the rest of the statement.
#include <cuda_runtime.h>
__device__ float bump(float* p, int i) {
  p[i] += 1.0f;
  return p[i];
}
__global__ void k(float* a, float* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = bump(a, i) + a[i];
    b[i] = v;
  }
}
void run(float* a, float* b, int n) { k<<<(n + 255) / 256, 256>>>(a, b, n); }
