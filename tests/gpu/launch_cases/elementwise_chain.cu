// Launch-change case (issue 13): two element-wise kernels through a
// temporary, the original of the fused candidate.
#include <cstdio>
#include <vector>

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

int main() {
  const int n = 1 << 16;
  std::vector<float> hx(n), hy(n);
  for (int i = 0; i < n; ++i) {
    hx[i] = static_cast<float>(i % 9) * 0.25f - 1.0f;
    hy[i] = static_cast<float>(i % 5) * 0.5f - 1.0f;
  }
  float *x, *y, *tmp, *out;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  cudaMalloc(&tmp, n * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  cudaMemcpy(x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(y, hy.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  const int blocks = (n + 255) / 256;
  mul<<<blocks, 256>>>(x, y, tmp, n);
  bias_relu<<<blocks, 256>>>(tmp, 0.1f, out, n);
  std::vector<float> h(n);
  cudaMemcpy(h.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost);
  double sum = 0;
  for (float v : h) sum += v;
  std::printf("checksum %.6f\n", sum);
  return 0;
}
