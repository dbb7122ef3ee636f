// Block reductions, in the order of Mark Harris' "Optimizing Parallel
// Reduction in CUDA": interleaved addressing with a modulo (divergent),
// interleaved addressing with a strided index (bank conflicts), sequential
// addressing, first add during load, unrolled with a template block size,
// and a warp-shuffle reduction. 256 threads per block.
#include "corpus_common.cuh"

#define BLOCK 256

__global__ void reduce_interleaved_modulo(const float* in, float* out, int n) {
  __shared__ float sdata[BLOCK];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = (i < n) ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    if (tid % (2 * s) == 0)  // expect: warp-divergence
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

__global__ void reduce_interleaved_strided(const float* in, float* out, int n) {
  __shared__ float sdata[BLOCK];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = (i < n) ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    unsigned index = 2 * s * tid;
    if (index < blockDim.x)
      sdata[index] += sdata[index + s];  // expect: shared-bank-conflict(load) shared-bank-conflict(store)
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

__global__ void reduce_sequential(const float* in, float* out, int n) {
  __shared__ float sdata[BLOCK];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = (i < n) ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

__global__ void reduce_first_add(const float* in, float* out, int n) {
  __shared__ float sdata[BLOCK];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
  sdata[tid] = in[i] + in[i + blockDim.x];
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

__device__ void warp_reduce(volatile float* sdata, unsigned tid) {
  sdata[tid] += sdata[tid + 32];
  sdata[tid] += sdata[tid + 16];
  sdata[tid] += sdata[tid + 8];
  sdata[tid] += sdata[tid + 4];
  sdata[tid] += sdata[tid + 2];
  sdata[tid] += sdata[tid + 1];
}

template <unsigned blockSize>
__global__ void reduce_unrolled(const float* in, float* out, int n) {
  __shared__ float sdata[blockSize];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * (blockSize * 2) + threadIdx.x;
  sdata[tid] = in[i] + in[i + blockSize];
  __syncthreads();
  if (blockSize >= 512) {
    if (tid < 256) sdata[tid] += sdata[tid + 256];
    __syncthreads();
  }
  if (blockSize >= 256) {
    if (tid < 128) sdata[tid] += sdata[tid + 128];
    __syncthreads();
  }
  if (blockSize >= 128) {
    if (tid < 64) sdata[tid] += sdata[tid + 64];
    __syncthreads();
  }
  if (tid < 32) warp_reduce(sdata, tid);
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

__device__ float warp_sum(float v) {
  for (int offset = warpSize / 2; offset > 0; offset /= 2)
    v += __shfl_down_sync(0xffffffff, v, offset);
  return v;
}

__global__ void reduce_warp_shuffle(const float* in, float* out, int n) {
  __shared__ float warp_sums[32];
  float v = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    v += in[i];
  v = warp_sum(v);
  int lane = threadIdx.x % warpSize;
  int wid = threadIdx.x / warpSize;
  if (lane == 0) warp_sums[wid] = v;
  __syncthreads();
  v = (threadIdx.x < blockDim.x / warpSize) ? warp_sums[lane] : 0.0f;
  if (wid == 0) v = warp_sum(v);
  if (threadIdx.x == 0) atomicAdd(out, v);
}

// Each thread sums a contiguous chunk first: the lanes of a warp read
// `chunk` elements apart.
__global__ void reduce_chunked(const float* in, float* out, int n, int chunk) {
  __shared__ float sdata[BLOCK];
  unsigned tid = threadIdx.x;
  unsigned start = (blockIdx.x * blockDim.x + tid) * chunk;
  float v = 0.0f;
  for (int k = 0; k < chunk; ++k)
    v += in[start + k];  // expect: uncoalesced-global(load)
  sdata[tid] = v;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

int main() {
  const int n = 1 << 24;
  float* in = device_buffer<float>(n);
  float* out = device_zeros<float>(n / BLOCK);
  float* total = device_zeros<float>(1);
  const int blocks = n / BLOCK;

  reduce_interleaved_modulo<<<blocks, BLOCK>>>(in, out, n);
  reduce_interleaved_strided<<<blocks, BLOCK>>>(in, out, n);
  reduce_sequential<<<blocks, BLOCK>>>(in, out, n);
  reduce_first_add<<<blocks / 2, BLOCK>>>(in, out, n);
  reduce_unrolled<BLOCK><<<blocks / 2, BLOCK>>>(in, out, n);
  reduce_warp_shuffle<<<1024, BLOCK>>>(in, total, n);
  reduce_chunked<<<blocks / 16, BLOCK>>>(in, out, n, 16);
  finish("reductions");

  cudaFree(in);
  cudaFree(out);
  cudaFree(total);
  return 0;
}
