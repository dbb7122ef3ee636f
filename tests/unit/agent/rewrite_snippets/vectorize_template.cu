// test: kernel=scale rewrite=vectorize width=4 shrink-grid=1
// expect: applies
// expect-output: wl_vector_load<4>(wl_in, in + wl_v);
// expect-output: wl_out[wl_c] = static_cast<T>(wl_in[wl_c] * factor);
// expect-launch: scale=1/4,1/1,1/1
// A template kernel instantiated once: checked on `scale<float>`, edited in
// the pattern.
#include <cuda_runtime.h>
template <typename T>
__global__ void scale(const T* in, T* out, T factor, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = static_cast<T>(in[i] * factor);
}
void run(const float* in, float* out, int n) { scale<float><<<(n + 255) / 256, 256>>>(in, out, 2.0f, n); }
