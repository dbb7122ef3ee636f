// out = relu(x * y + bias) as two kernels through a temporary buffer.
// usage: elementwise_chain [n]
#include <cstdio>
#include <cstdlib>
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

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 64 << 20;
  const float bias = 0.1f;
  const int threads = 256;
  std::vector<float> hx(n), hy(n);
  for (int i = 0; i < n; ++i) {
    hx[i] = static_cast<float>(i % 2003) * 0.001f - 1.0f;
    hy[i] = static_cast<float>((i * 13) % 997) * 0.002f - 1.0f;
  }
  float *d_x, *d_y, *d_tmp, *d_out;
  cudaMalloc(&d_x, n * sizeof(float));
  cudaMalloc(&d_y, n * sizeof(float));
  cudaMalloc(&d_tmp, n * sizeof(float));
  cudaMalloc(&d_out, n * sizeof(float));
  cudaMemcpy(d_x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(d_y, hy.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  const int blocks = (n + threads - 1) / threads;
  mul<<<blocks, threads>>>(d_x, d_y, d_tmp, n);
  bias_relu<<<blocks, threads>>>(d_tmp, bias, d_out, n);
  cudaMemcpy(hx.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost);
  double sum = 0;
  for (int i = 0; i < n; ++i) sum += hx[i];
  std::printf("chain %d checksum %.6f\n", n, sum);
  cudaFree(d_x);
  cudaFree(d_y);
  cudaFree(d_tmp);
  cudaFree(d_out);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
