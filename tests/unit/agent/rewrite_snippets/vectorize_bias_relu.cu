// test: kernel=bias_relu rewrite=vectorize width=4 shrink-grid=1
// expect: applies
// expect-output: wl_vector_load<4>(wl_in, in + wl_v);
// expect-output: wl_vector_store<4>(out + wl_v, wl_out);
// expect-no-output: wl_vector_load<4>(wl_out
// expect-launch: scale=1/4,1/1,1/1
#include <cuda_runtime.h>
__global__ void bias_relu(const float* in, float bias, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = in[i] + bias;
    out[i] = v > 0.0f ? v : 0.0f;
  }
}
void run(const float* in, float* out, int n) { bias_relu<<<(n + 255) / 256, 256>>>(in, 0.5f, out, n); }
