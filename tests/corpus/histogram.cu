// Histograms of byte data: global atomics, shared-memory atomics, and
// per-warp private shared histograms. The bin is data: the atomic's address
// is an indirect access. The block size comes from the command line.
#include "corpus_common.cuh"

#define BINS 256
#define WARPS_PER_BLOCK 8

__global__ void histogram_global(const unsigned char* data, unsigned int* hist, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&hist[data[i]], 1u);  // expect: indirect-access(atomic)
}

__global__ void histogram_shared(const unsigned char* data, unsigned int* hist, int n) {
  __shared__ unsigned int s_hist[BINS];
  for (int b = threadIdx.x; b < BINS; b += blockDim.x) s_hist[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&s_hist[data[i]], 1u);  // expect: indirect-access(atomic)
  __syncthreads();
  for (int b = threadIdx.x; b < BINS; b += blockDim.x) atomicAdd(&hist[b], s_hist[b]);
}

// One private histogram per warp ([warp][bin]); merged bin by bin.
__global__ void histogram_per_warp(const unsigned char* data, unsigned int* hist, int n) {
  __shared__ unsigned int s_hist[WARPS_PER_BLOCK][BINS];
  const int warp = threadIdx.x / 32;
  for (int b = threadIdx.x; b < WARPS_PER_BLOCK * BINS; b += blockDim.x) s_hist[b / BINS][b % BINS] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&s_hist[warp % WARPS_PER_BLOCK][data[i]], 1u);  // expect: indirect-access(atomic)
  __syncthreads();
  for (int b = threadIdx.x; b < BINS; b += blockDim.x) {
    unsigned int sum = 0;
    for (int w = 0; w < WARPS_PER_BLOCK; ++w) sum += s_hist[w][b];
    atomicAdd(&hist[b], sum);
  }
}

// Four bytes per thread through one 32-bit load.
__global__ void histogram_packed(const unsigned int* data4, unsigned int* hist, int n4) {
  __shared__ unsigned int s_hist[BINS];
  for (int b = threadIdx.x; b < BINS; b += blockDim.x) s_hist[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += blockDim.x * gridDim.x) {
    unsigned int word = data4[i];
    atomicAdd(&s_hist[word & 0xff], 1u);  // expect: indirect-access(atomic)
    atomicAdd(&s_hist[(word >> 8) & 0xff], 1u);  // expect: indirect-access(atomic)
    atomicAdd(&s_hist[(word >> 16) & 0xff], 1u);  // expect: indirect-access(atomic)
    atomicAdd(&s_hist[word >> 24], 1u);  // expect: indirect-access(atomic)
  }
  __syncthreads();
  for (int b = threadIdx.x; b < BINS; b += blockDim.x) atomicAdd(&hist[b], s_hist[b]);
}

int main(int argc, char** argv) {
  const int n = 1 << 24;
  const int threads = int_arg(argc, argv, 1, 256);
  unsigned char* data = device_buffer<unsigned char>(n);
  unsigned int* hist = device_zeros<unsigned int>(BINS);
  histogram_global<<<1024, threads>>>(data, hist, n);
  histogram_shared<<<1024, threads>>>(data, hist, n);
  histogram_per_warp<<<1024, threads>>>(data, hist, n);
  histogram_packed<<<1024, threads>>>(reinterpret_cast<const unsigned int*>(data), hist, n / 4);
  finish("histogram");
  cudaFree(data);
  cudaFree(hist);
  return 0;
}
