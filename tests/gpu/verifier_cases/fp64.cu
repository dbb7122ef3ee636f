// Verifier GPU case: double-precision kernels, held to the fp64 tolerance
// (1e-10): out = alpha * x + y, and a per-row sum (a block per row, a
// shared-memory tree). Candidates that compute in float must fail.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

__global__ void dscale_add(const double* x, const double* y, double* out, double alpha, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = alpha * x[i] + y[i];
}

__global__ void drow_sum(const double* in, double* out, int cols) {
  __shared__ double partial[256];
  const int row = blockIdx.x;
  double acc = 0.0;
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
  const int n = 1 << 20, rows = 2048, cols = 1024;
  std::vector<double> x(n), y(n), in(static_cast<size_t>(rows) * cols);
  for (int i = 0; i < n; ++i) {
    x[i] = 0.001 * (i % 1000) - 0.5;
    y[i] = 0.25 * (i % 7) + 1e-3;
  }
  unsigned state = 12345;
  for (auto& v : in) {
    state = state * 1664525u + 1013904223u;
    v = static_cast<double>(state >> 8) / static_cast<double>(1u << 24) * 2.0 - 1.0;
  }
  double *dx, *dy, *dout, *din, *drow;
  if (cudaMalloc(&dx, n * 8) || cudaMalloc(&dy, n * 8) || cudaMalloc(&dout, n * 8) ||
      cudaMalloc(&din, in.size() * 8) || cudaMalloc(&drow, rows * 8))
    return 1;
  cudaMemcpy(dx, x.data(), n * 8, cudaMemcpyHostToDevice);
  cudaMemcpy(dy, y.data(), n * 8, cudaMemcpyHostToDevice);
  cudaMemcpy(din, in.data(), in.size() * 8, cudaMemcpyHostToDevice);
  dscale_add<<<(n + 255) / 256, 256>>>(dx, dy, dout, 1.0 / 3.0, n);
  drow_sum<<<rows, 256>>>(din, drow, cols);
  double first = 0;
  if (cudaMemcpy(&first, drow, 8, cudaMemcpyDeviceToHost) != cudaSuccess) return 1;
  std::printf("fp64 drow_sum[0] = %.12f\n", first);
  return 0;
}
