// A 256-bin histogram: privatized in shared memory with shared atomics, then
// merged into global memory, next to the direct global-atomics version.
#include <cuda_runtime.h>

constexpr int kBins = 256;

__global__ void histogram_global(const unsigned char* __restrict__ data, unsigned* hist, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) atomicAdd(&hist[data[i]], 1u);
}

__global__ void histogram_shared(const unsigned char* __restrict__ data, unsigned* hist, int n) {
  __shared__ unsigned local[kBins];
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) atomicAdd(&hist[b], local[b]);
}

int main() {
  const int n = 1 << 26;
  unsigned char* data;
  unsigned* hist;
  cudaMalloc(&data, n);
  cudaMalloc(&hist, kBins * sizeof(unsigned));
  histogram_global<<<132 * 4, 256>>>(data, hist, n);
  histogram_shared<<<132 * 4, 256>>>(data, hist, n);
  cudaDeviceSynchronize();
  return 0;
}
