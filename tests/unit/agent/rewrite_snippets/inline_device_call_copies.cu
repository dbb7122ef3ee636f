// test: kernel=scaled rewrite=inline-device-call
// expect: applies
// expect-output: const float wl_x = (in[i]);
// expect-output: float wl_v = wl_x * wl_x;
// expect-output: if (wl_v > wl_limit) wl_v = wl_limit;
// expect-output: const float wl_clamp_sq = static_cast<float>(wl_v);
// expect-output: out[i] = 2.0f * wl_clamp_sq;
// An argument that is an expression, and one whose type differs from the
// parameter's (an int passed as float), become copies; the helper's locals
// and its `if` keep their shape under fresh names.
#include <cuda_runtime.h>
__device__ float clamp_sq(float x, float limit) {
  float v = x * x;
  if (v > limit) v = limit;
  return v;
}
__global__ void scaled(const float* in, float* out, int n, int cap) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = 2.0f * clamp_sq(in[i], cap);
  }
}
void run(const float* in, float* out, int n) { scaled<<<(n + 255) / 256, 256>>>(in, out, n, 4); }
