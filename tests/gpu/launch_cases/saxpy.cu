// Launch-change case (issue 13): in-place y = a * x + y, one element per
// thread, the original of the persistent grid-stride candidate.
#include <cstdio>
#include <vector>

__global__ void saxpy_inplace(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

int main() {
  const int n = 1 << 16;
  std::vector<float> hx(n), hy(n);
  for (int i = 0; i < n; ++i) {
    hx[i] = static_cast<float>(i % 13) * 0.5f;
    hy[i] = static_cast<float>(i % 3) - 1.0f;
  }
  float *x, *y;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  cudaMemcpy(x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(y, hy.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  saxpy_inplace<<<(n + 255) / 256, 256>>>(2.0f, x, y, n);
  cudaMemcpy(hy.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost);
  double sum = 0;
  for (float v : hy) sum += v;
  std::printf("checksum %.6f\n", sum);
  return 0;
}
