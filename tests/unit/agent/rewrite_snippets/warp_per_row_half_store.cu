// test: kernel=rmsnorm rewrite=warp-per-row lanes=32 cache=0
// expect: applies
// expect-output: ss = wl_warp_sum(ss);
// expect-launch: scale=32/1,1/1,1/1
// RMS norm over rows of __half through row pointers: the stores are
// `__half` assignments (a class type's operator=), not built-in stores.
#include <cuda_fp16.h>
__global__ void rmsnorm(__half* out, const __half* x, const __half* weight, int rows, int dim, float eps) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const __half* xr = x + (long)r * dim;
  __half* outr = out + (long)r * dim;
  float ss = 0.0f;
  for (int i = 0; i < dim; i++) {
    float v = __half2float(xr[i]);
    ss += v * v;
  }
  float scale = rsqrtf(ss / dim + eps);
  for (int i = 0; i < dim; i++) {
    outr[i] = __float2half(__half2float(xr[i]) * scale * __half2float(weight[i]));
  }
}
void run(__half* o, const __half* x, const __half* w, int rows, int dim) {
  rmsnorm<<<(rows + 127) / 128, 128>>>(o, x, w, rows, dim, 1e-5f);
}
