// Naive matrix transpose, one thread per element: the store is uncoalesced.
// usage: transpose_naive [W H]
#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void transpose_naive(const float* in, float* out, int W, int H) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;  // column of `in`
  int y = blockIdx.y * blockDim.y + threadIdx.y;  // row of `in`
  if (x < W && y < H) {
    out[x * H + y] = in[y * W + x];
  }
}

void transpose(const float* in, float* out, int W, int H) {
  dim3 block(16, 16);
  dim3 grid((W + block.x - 1) / block.x, (H + block.y - 1) / block.y);
  transpose_naive<<<grid, block>>>(in, out, W, H);
}

int main(int argc, char** argv) {
  const int W = argc > 2 ? std::atoi(argv[1]) : 8192, H = argc > 2 ? std::atoi(argv[2]) : 8192;
  const size_t n = static_cast<size_t>(W) * H;
  std::vector<float> h(n);
  for (size_t i = 0; i < n; ++i) h[i] = static_cast<float>((i * 2654435761u) % 1000) * 0.001f - 0.5f;
  float *in, *out;
  cudaMalloc(&in, n * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  cudaMemcpy(in, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  transpose(in, out, W, H);
  cudaMemcpy(h.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost);
  double sum = 0;
  for (size_t i = 0; i < n; ++i) sum += h[i] * static_cast<double>(i % 7);
  std::printf("transpose %dx%d checksum %.6f\n", W, H, sum);
  cudaFree(in);
  cudaFree(out);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
