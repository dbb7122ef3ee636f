// test: kernel=scale rewrite=vectorize width=4 shrink-grid=1
// expect: refuses the template's instantiations need different edits
// Instantiated for float and double: the alignment a 4-wide access needs
// differs (16 and 32 bytes), so no single edit of the pattern serves both.
#include <cuda_runtime.h>
template <typename T>
__global__ void scale(const T* in, T* out, T factor, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * factor;
}
void run(const float* a, float* b, const double* c, double* d, int n) {
  scale<float><<<(n + 255) / 256, 256>>>(a, b, 2.0f, n);
  scale<double><<<(n + 255) / 256, 256>>>(c, d, 2.0, n);
}
