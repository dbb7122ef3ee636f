// Verifier GPU case: one block per row sums 1024 floats with a shared-memory
// tree; deterministic. Candidates race (atomics) or drop to half precision.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

__global__ void row_sum(const float* in, float* out, int cols) {
  __shared__ float partial[256];
  const int row = blockIdx.x;
  float acc = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) acc += in[row * cols + c];
  partial[threadIdx.x] = acc;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[row] = partial[0];
}

int main() {
  const int rows = 4096, cols = 1024;
  std::vector<float> in(static_cast<size_t>(rows) * cols);
  unsigned state = 12345;
  for (auto& v : in) {
    state = state * 1664525u + 1013904223u;
    v = static_cast<float>(state >> 8) / static_cast<float>(1u << 24) * 2.0f - 1.0f;
  }
  float *din, *dout;
  if (cudaMalloc(&din, in.size() * sizeof(float)) != cudaSuccess) return 1;
  if (cudaMalloc(&dout, rows * sizeof(float)) != cudaSuccess) return 1;
  cudaMemcpy(din, in.data(), in.size() * sizeof(float), cudaMemcpyHostToDevice);
  row_sum<<<rows, 256>>>(din, dout, cols);
  std::vector<float> out(rows);
  if (cudaMemcpy(out.data(), dout, rows * sizeof(float), cudaMemcpyDeviceToHost) != cudaSuccess) return 1;
  std::printf("row_sum out[0] = %f\n", out[0]);
  return 0;
}
