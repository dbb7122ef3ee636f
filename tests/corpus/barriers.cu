// Barriers and divergence. The buggy kernels are written so that, with the
// sizes main uses (n a multiple of the grid's thread count, non-negative
// data), every thread still reaches every barrier: the program runs, but a
// different n or data would hang or race. 256 threads per block.
#include <cooperative_groups.h>

#include "corpus_common.cuh"

namespace cg = cooperative_groups;

#define BLOCK 256

// The bounds check wraps the barrier: the threads past n skip it.
__global__ void barrier_in_bounds_check(const float* in, float* out, int n) {
  __shared__ float tile[BLOCK];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    tile[threadIdx.x] = in[i];
    __syncthreads();  // expect: divergent-barrier@error
    out[i] = tile[blockDim.x - 1 - threadIdx.x];
  }
}

// The threads past n return before the barrier.
__global__ void barrier_after_early_exit(const float* in, float* out, int n) {
  __shared__ float tile[BLOCK];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  tile[threadIdx.x] = in[i];
  __syncthreads();  // expect: divergent-barrier@warning
  out[i] = tile[(threadIdx.x + 1) % blockDim.x];
}

// A grid-stride loop around barriers: threads run different trip counts
// unless n is a multiple of the grid's thread count.
__global__ void barrier_in_grid_stride_loop(const float* in, float* out, int n) {
  __shared__ float tile[BLOCK];
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    tile[threadIdx.x] = in[i];
    __syncthreads();  // expect: divergent-barrier@error
    out[i] = tile[threadIdx.x] + tile[(threadIdx.x + 1) % blockDim.x];
    __syncthreads();  // expect: divergent-barrier@error
  }
}

// A barrier under a condition on the thread's own data.
__global__ void barrier_under_data(const float* in, float* out, int n) {
  __shared__ float tile[BLOCK];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = in[i];
  if (v >= 0.0f) {
    tile[threadIdx.x] = v;
    __syncthreads();  // expect: divergent-barrier@error
    v = tile[blockDim.x - 1 - threadIdx.x];
  }
  out[i] = v;
}

__device__ void stage(float* tile, const float* in, int i) {
  tile[threadIdx.x] = in[i];
  __syncthreads();  // expect: divergent-barrier@error
}

// The barrier is in a device function, the condition in the kernel.
__global__ void barrier_in_called_function(const float* in, float* out, int n) {
  __shared__ float tile[BLOCK];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) stage(tile, in, i);
  out[i] = tile[(threadIdx.x + 7) % blockDim.x];
}

__global__ void cooperative_groups_guarded(const float* in, float* out, int n) {
  __shared__ float tile[BLOCK];
  cg::thread_block block = cg::this_thread_block();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    tile[threadIdx.x] = in[i];
    block.sync();  // expect: divergent-barrier@error
    out[i] = tile[blockDim.x - 1 - threadIdx.x];
  }
}

// Correct: every barrier is reached by the whole block.
__global__ void barriers_correct(const float* in, float* out, int n) {
  __shared__ float tile[BLOCK];
  cg::thread_block block = cg::this_thread_block();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = (i < n) ? in[i] : 0.0f;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) tile[threadIdx.x] += tile[threadIdx.x + s];
    __syncthreads();
  }
  if (blockDim.x >= 64) {
    block.sync();
  }
  if (threadIdx.x < 32) {
    float v = tile[threadIdx.x];
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffff, v, offset);
    __syncwarp();
    if (threadIdx.x < 16) {  // expect: warp-divergence
      tile[threadIdx.x] = v;
      __syncwarp(0x0000ffff);
    }
  }
  if (threadIdx.x == 0) out[blockIdx.x] = tile[0];
}

// Warp divergence: even and odd lanes do different work.
__global__ void even_odd_work(const float* in, float* out, int n, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = in[i];
  if (threadIdx.x % 2 == 0) {  // expect: warp-divergence
    for (int k = 0; k < iters; ++k) v = v * 0.999f + 0.5f;
  } else {
    for (int k = 0; k < iters; ++k) v = sqrtf(v + float(k));
  }
  out[i] = v;
}

// The same split by whole warps: no divergence.
__global__ void even_odd_warps(const float* in, float* out, int n, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = in[i];
  if ((threadIdx.x / 32) % 2 == 0) {
    for (int k = 0; k < iters; ++k) v = v * 0.999f + 0.5f;
  } else {
    for (int k = 0; k < iters; ++k) v = sqrtf(v + float(k));
  }
  out[i] = v;
}

// Four cases by lane.
__global__ void four_way_switch(const float* in, float* out, int n, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = in[i];
  switch (threadIdx.x % 4) {  // expect: warp-divergence
    case 0:
      for (int k = 0; k < iters; ++k) v = v * 0.999f + 0.5f;
      break;
    case 1:
      for (int k = 0; k < iters; ++k) v = sqrtf(v + float(k));
      break;
    case 2:
      for (int k = 0; k < iters; ++k) v = v * v * 0.5f + 0.25f;
      break;
    default:
      for (int k = 0; k < iters; ++k) v = v - 0.001f * float(k);
      break;
  }
  out[i] = v;
}

// A quarter of each warp does extra work; a single lane writes a result;
// data decides the rest (not reported: the split depends on the data).
__global__ void partial_warp_work(const float* in, float* out, float* flags, int n, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x % 32;
  float v = in[i];
  if (lane < 8) {  // expect: warp-divergence
    for (int k = 0; k < iters; ++k) v = v * 0.999f + 0.5f;
  }
  if (v > 5.0f) {
    for (int k = 0; k < iters; ++k) v = sqrtf(v + float(k));
  }
  out[i] = v;
  if (lane == 0) flags[i / 32] = v;
}

int main() {
  const int n = 1 << 22;
  float* in = device_buffer<float>(n);
  float* out = device_zeros<float>(n);
  float* flags = device_zeros<float>(n / 32);
  const int blocks = n / BLOCK;

  barrier_in_bounds_check<<<blocks, BLOCK>>>(in, out, n);
  barrier_after_early_exit<<<blocks, BLOCK>>>(in, out, n);
  barrier_in_grid_stride_loop<<<1024, BLOCK>>>(in, out, n);
  barrier_under_data<<<blocks, BLOCK>>>(in, out, n);
  barrier_in_called_function<<<blocks, BLOCK>>>(in, out, n);
  cooperative_groups_guarded<<<blocks, BLOCK>>>(in, out, n);
  barriers_correct<<<blocks, BLOCK>>>(in, out, n);
  even_odd_work<<<blocks, BLOCK>>>(in, out, n, 64);
  even_odd_warps<<<blocks, BLOCK>>>(in, out, n, 64);
  four_way_switch<<<blocks, BLOCK>>>(in, out, n, 64);
  partial_warp_work<<<blocks, BLOCK>>>(in, out, flags, n, 64);
  finish("barriers");

  cudaFree(in);
  cudaFree(out);
  cudaFree(flags);
  return 0;
}
