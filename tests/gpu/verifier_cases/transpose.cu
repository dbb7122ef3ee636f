// Verifier GPU case: a naive 2048 x 2048 float transpose (coalesced reads,
// strided writes), the kind of kernel an optimiser rewrites with a shared
// tile.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <vector>

__global__ void transpose_naive(const float* in, float* out, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols) out[c * rows + r] = in[r * cols + c];
}

int main() {
  const int rows = 2048, cols = 2048;
  std::vector<float> in(rows * cols);
  for (int i = 0; i < rows * cols; ++i) in[i] = std::sin(0.001f * static_cast<float>(i));
  float *din, *dout;
  if (cudaMalloc(&din, in.size() * sizeof(float)) != cudaSuccess) return 1;
  if (cudaMalloc(&dout, in.size() * sizeof(float)) != cudaSuccess) return 1;
  cudaMemcpy(din, in.data(), in.size() * sizeof(float), cudaMemcpyHostToDevice);
  transpose_naive<<<dim3(cols / 32, rows / 32), dim3(32, 32)>>>(din, dout, rows, cols);
  std::vector<float> out(in.size());
  if (cudaMemcpy(out.data(), dout, out.size() * sizeof(float), cudaMemcpyDeviceToHost) != cudaSuccess) return 1;
  std::printf("transpose out[1] = %f (in[cols] = %f)\n", out[1], in[cols]);
  return out[1] == in[cols] ? 0 : 1;
}
