// warplens-fused: kernel=mul_bias_relu_fused first=mul second=bias_relu params=A0,A1,A2,A3,B1,B2,B3 elides=A2
// Launch-change case, wrong on purpose: a fused kernel that drops the ReLU.
// The pair's output differs wherever x * y + bias < 0: must be rejected.
#include <cstdio>

__global__ void mul_bias_relu_fused(const float* wl_a_x, const float* wl_a_y, float* wl_a_tmp, int wl_a_n, float bias,
                                    float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = (wl_a_x[(i)] * wl_a_y[(i)]) + bias;
}
