// Chunked scale-copy: each thread copies a contiguous chunk, so a warp's
// lanes are CHUNK floats apart at every step.
// usage: strided_copy [n]
#include <cstdio>
#include <cstdlib>
#include <vector>

constexpr int CHUNK = 16;

__global__ void scale_copy_chunked(const float* in, float* out, float scale, int chunks) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < chunks) {
    for (int k = 0; k < CHUNK; ++k) {
      out[t * CHUNK + k] = in[t * CHUNK + k] * scale;
    }
  }
}

void scale_copy(const float* in, float* out, float scale, int n) {
  int chunks = n / CHUNK;
  int threads = 256;
  scale_copy_chunked<<<(chunks + threads - 1) / threads, threads>>>(in, out, scale, chunks);
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 64 << 20;
  std::vector<float> h(n);
  for (int i = 0; i < n; ++i) h[i] = static_cast<float>(i % 1024) * 0.25f - 128.0f;
  float *in, *out;
  cudaMalloc(&in, n * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  cudaMemcpy(in, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  scale_copy(in, out, 1.5f, n);
  cudaMemcpy(h.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost);
  double sum = 0;
  for (int i = 0; i < n; ++i) sum += h[i];
  std::printf("scale_copy %d checksum %.6f\n", n, sum);
  cudaFree(in);
  cudaFree(out);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
