// Parallel reduction, after Mark Harris's "Optimizing Parallel Reduction in
// CUDA": interleaved addressing with a divergent modulo branch, interleaved
// addressing with strided shared indices (bank conflicts), sequential
// addressing, and a warp-shuffle version. The last kernel has a barrier that
// only some threads reach.
#include <cuda_runtime.h>

#define BLOCK 256

__global__ void reduce_interleaved_divergent(const int* in, int* out, unsigned n) {
  __shared__ int sdata[BLOCK];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = i < n ? in[i] : 0;
  __syncthreads();
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    if (tid % (2 * s) == 0) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

__global__ void reduce_interleaved_conflicts(const int* in, int* out, unsigned n) {
  __shared__ int sdata[BLOCK];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = i < n ? in[i] : 0;
  __syncthreads();
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    unsigned index = 2 * s * tid;
    if (index < blockDim.x) sdata[index] += sdata[index + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

__global__ void reduce_sequential(const int* in, int* out, unsigned n) {
  __shared__ int sdata[BLOCK];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
  int v = i < n ? in[i] : 0;
  if (i + blockDim.x < n) v += in[i + blockDim.x];
  sdata[tid] = v;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

__device__ int warp_sum(int v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffff, v, offset);
  return v;
}

__global__ void reduce_shuffle(const int* in, int* out, unsigned n) {
  __shared__ int warp_totals[BLOCK / 32];
  int sum = 0;
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) sum += in[i];
  sum = warp_sum(sum);
  if (threadIdx.x % 32 == 0) warp_totals[threadIdx.x / 32] = sum;
  __syncthreads();
  if (threadIdx.x < 32) {
    sum = threadIdx.x < blockDim.x / 32 ? warp_totals[threadIdx.x] : 0;
    sum = warp_sum(sum);
    if (threadIdx.x == 0) atomicAdd(out, sum);
  }
}

__global__ void reduce_broken_barrier(const int* in, int* out, unsigned n) {
  __shared__ int sdata[BLOCK];
  unsigned tid = threadIdx.x;
  sdata[tid] = in[blockIdx.x * blockDim.x + tid];
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) {
      sdata[tid] += sdata[tid + s];
      __syncthreads();  // only threads with tid < s arrive here
    }
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

int main() {
  const unsigned n = 1 << 24;
  int *in, *out;
  cudaMalloc(&in, n * sizeof(int));
  cudaMalloc(&out, (n / BLOCK) * sizeof(int));
  reduce_interleaved_divergent<<<n / BLOCK, BLOCK>>>(in, out, n);
  reduce_interleaved_conflicts<<<n / BLOCK, BLOCK>>>(in, out, n);
  reduce_sequential<<<n / BLOCK / 2, BLOCK>>>(in, out, n);
  reduce_shuffle<<<132 * 8, BLOCK>>>(in, out, n);
  reduce_broken_barrier<<<n / BLOCK, BLOCK>>>(in, out, n);
  cudaDeviceSynchronize();
  return 0;
}
