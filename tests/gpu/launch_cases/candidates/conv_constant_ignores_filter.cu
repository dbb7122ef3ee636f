// A wrong candidate for conv_constant.cu: a box filter in place of the
// program's __constant__ filter. Its outputs differ from the captured ones.
__global__ void conv5(const float* __restrict__ x, float* __restrict__ y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float acc = 0.0f;
    for (int k = 0; k < 5; ++k) {
      int j = i + k - 2;
      if (j >= 0 && j < n) acc += 0.2f * x[j];
    }
    y[i] = acc;
  }
}
