// warplens-fused: kernel=mul_bias_relu_fused first=mul second=bias_relu params=A0,A1,A2,A3,B1,B2,B3 elides=A2
// Launch-change case: fuse-elementwise of elementwise_chain.cu: one kernel
// in place of `mul` then `bias_relu`; the temporary is passed but neither
// written nor read.
#include <cstdio>

__global__ void mul(const float* x, const float* y, float* tmp, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) tmp[i] = x[i] * y[i];
}

__global__ void bias_relu(const float* t, float bias, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = t[i] + bias;
    out[i] = v > 0.0f ? v : 0.0f;
  }
}

__global__ void mul_bias_relu_fused(const float* wl_a_x, const float* wl_a_y, float* wl_a_tmp, int wl_a_n, float bias,
                                    float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = (wl_a_x[(i)] * wl_a_y[(i)]) + bias;
    out[i] = v > 0.0f ? v : 0.0f;
  }
}
