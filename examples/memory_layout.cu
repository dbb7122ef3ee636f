// Access patterns of global memory: a coalesced copy, a strided copy, an
// array-of-structs update against its struct-of-arrays twin, and a gather
// through an index array (data-dependent addresses).
#include <cuda_runtime.h>

struct Particle {
  float x, y, z, mass;
};

__global__ void copy_coalesced(const float* __restrict__ in, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}

__global__ void copy_strided(const float* __restrict__ in, float* __restrict__ out, int n, int stride) {
  int i = (blockIdx.x * blockDim.x + threadIdx.x) * stride;
  if (i < n) out[i] = in[i];
}

__global__ void advance_aos(Particle* p, const float* __restrict__ vx, float dt, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i].x += vx[i] * dt;  // 16-byte stride: 4x the sectors
}

__global__ void advance_soa(float* __restrict__ x, const float* __restrict__ vx, float dt, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += vx[i] * dt;
}

__global__ void gather(const float* __restrict__ values, const int* __restrict__ index, float* out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) out[i] = values[index[i]];
}

__global__ void copy_vectorized(const float4* __restrict__ in, float4* __restrict__ out, int n4) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4) out[i] = in[i];
}

int main() {
  const int n = 1 << 24;
  float *a, *b, *v;
  int* idx;
  Particle* p;
  cudaMalloc(&a, n * sizeof(float));
  cudaMalloc(&b, n * sizeof(float));
  cudaMalloc(&v, n * sizeof(float));
  cudaMalloc(&idx, n * sizeof(int));
  cudaMalloc(&p, n * sizeof(Particle));
  const int threads = 256;
  const int blocks = (n + threads - 1) / threads;
  copy_coalesced<<<blocks, threads>>>(a, b, n);
  copy_strided<<<blocks, threads>>>(a, b, n, 32);
  advance_aos<<<blocks, threads>>>(p, v, 0.01f, n);
  advance_soa<<<blocks, threads>>>(a, v, 0.01f, n);
  gather<<<132 * 8, threads>>>(a, idx, b, n);
  copy_vectorized<<<blocks / 4, threads>>>(reinterpret_cast<float4*>(a), reinterpret_cast<float4*>(b), n / 4);
  cudaDeviceSynchronize();
  return 0;
}
