// Candidate for conv_constant.cu: the same convolution with restrict-qualified
// pointers; it reads the same __constant__ filter, so it is correct only when
// the replay restores the captured filter into the candidate's module too.
__constant__ float c_filter[5];

__global__ void conv5(const float* __restrict__ x, float* __restrict__ y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float acc = 0.0f;
#pragma unroll
    for (int k = 0; k < 5; ++k) {
      int j = i + k - 2;
      if (j >= 0 && j < n) acc += c_filter[k] * x[j];
    }
    y[i] = acc;
  }
}
