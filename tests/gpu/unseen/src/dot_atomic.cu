// Dot product the short way: every thread adds its product straight into
// one global float.
// usage: dot_atomic [N]
#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void dot_atomic(const float* a, const float* b, float* result, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    atomicAdd(result, a[i] * b[i]);
  }
}

int main(int argc, char** argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : (1 << 24);
  std::vector<float> ha(n), hb(n);
  for (int i = 0; i < n; ++i) {
    ha[i] = (float)((i * 37) % 101) / 101.0f - 0.5f;
    hb[i] = (float)((i * 11) % 89) / 89.0f;
  }
  float *a, *b, *r;
  cudaMalloc(&a, n * sizeof(float));
  cudaMalloc(&b, n * sizeof(float));
  cudaMalloc(&r, sizeof(float));
  cudaMemcpy(a, ha.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(b, hb.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemset(r, 0, sizeof(float));
  int block = 256;
  dot_atomic<<<(n + block - 1) / block, block>>>(a, b, r, n);
  float hr = 0;
  cudaMemcpy(&hr, r, sizeof(float), cudaMemcpyDeviceToHost);
  printf("dot %d = %f\n", n, hr);
  cudaFree(a); cudaFree(b); cudaFree(r);
  return 0;
}
