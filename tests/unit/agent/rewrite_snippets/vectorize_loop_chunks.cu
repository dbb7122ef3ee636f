// test: kernel=invert rewrite=vectorize-loop
// expect: applies
// expect-output: wl_vector_load<4>(wl_A_v, A + (i * 16 + 0) + wl_k);
// expect-output: wl_vector_store<4>(Ainv + (i * 16 + 0) + wl_k2, wl_Ainv_v);
// Per-thread chunks of 16 floats: read and written 4 at a time.
#include <cuda_runtime.h>
__global__ void invert(const float* A, float* Ainv, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    double m[16];
    for (int k = 0; k < 16; ++k) m[k] = A[i * 16 + k];
    double s = 0;
    for (int k = 0; k < 16; ++k) s += m[k];
    for (int k = 0; k < 16; ++k) Ainv[i * 16 + k] = static_cast<float>(m[k] / s);
  }
}
