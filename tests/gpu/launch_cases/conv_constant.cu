// Module-variable case: a 5-tap convolution whose filter is a __constant__
// array set with cudaMemcpyToSymbol. The kernel reads the filter from its
// module, not through a parameter, so a replay that restores only the
// parameters' allocations runs it on a zeroed filter.
#include <cstdio>
#include <vector>

__constant__ float c_filter[5];

__global__ void conv5(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float acc = 0.0f;
    for (int k = 0; k < 5; ++k) {
      int j = i + k - 2;
      if (j >= 0 && j < n) acc += c_filter[k] * x[j];
    }
    y[i] = acc;
  }
}

int main() {
  const int n = 1 << 16;
  const float filter[5] = {0.0625f, 0.25f, 0.375f, 0.25f, 0.0625f};
  std::vector<float> hx(n), hy(n);
  for (int i = 0; i < n; ++i) hx[i] = static_cast<float>(i % 11) * 0.5f - 2.0f;
  float *x, *y;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  cudaMemcpy(x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpyToSymbol(c_filter, filter, sizeof filter);
  conv5<<<(n + 255) / 256, 256>>>(x, y, n);
  cudaMemcpy(hy.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost);
  double sum = 0;
  for (float v : hy) sum += v;
  std::printf("checksum %.6f\n", sum);
  return 0;
}
