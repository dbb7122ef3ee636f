// A 1-D convolution with a 9-tap filter read from global memory.
// usage: conv1d [N]
#include <cstdio>
#include <cstdlib>
#include <vector>

#define TAPS 9

__global__ void conv1d(const float* in, const float* w, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n - TAPS + 1) {
    float acc = 0.f;
    for (int k = 0; k < TAPS; k++) acc += in[i + k] * w[k];
    out[i] = acc;
  }
}

int main(int argc, char** argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : (1 << 25);
  std::vector<float> h(n), hw(TAPS);
  for (int i = 0; i < n; ++i) h[i] = (float)(i % 1000) * 0.001f;
  for (int k = 0; k < TAPS; ++k) hw[k] = 1.0f / (k + 1);
  float *in, *w, *out;
  cudaMalloc(&in, n * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  cudaMalloc(&w, TAPS * sizeof(float));
  cudaMemcpy(in, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(w, hw.data(), TAPS * sizeof(float), cudaMemcpyHostToDevice);
  conv1d<<<(n + 255) / 256, 256>>>(in, w, out, n);
  cudaMemcpy(h.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost);
  double s = 0;
  for (int i = 0; i < n - TAPS + 1; ++i) s += h[i];
  printf("conv1d %d checksum %f\n", n, s);
  cudaFree(in); cudaFree(w); cudaFree(out);
  return 0;
}
