// warplens candidate c11 for kernel `reduce_interleaved` (policy builtin)
// plan: warp-shuffle-reduction() + restrict-const()
// warp-shuffle-reduction: tree reduction over `sdata` in 8 barrier-separated steps for blocks of 256: shuffles need two barriers; restrict-const: 1 pointer parameter(s) gain const/__restrict__
// note: warp-shuffle-reduction: the replaced loop was executed symbolically for blocks of 256: it reduces every slot into [0] exactly once, race-free
// note: warp-shuffle-reduction: afterwards only sdata[0] is read; floating-point sums are reassociated
// note: restrict-const: every launch in the file passes distinct pointer variables (no aliasing)
// note: restrict-const: const added only to pointers the kernel never writes through
// Sum of an array with an interleaved shared-memory tree per block (most
// lanes idle) and an atomic add of the block sums.
// usage: interleaved_reduction [n]
#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void reduce_interleaved(const float* __restrict__ in, float* sum, int n) {
  extern __shared__ float sdata[];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = (i < n) ? in[i] : 0.0f;
  __syncthreads();
  {
    // Rewritten by warplens (warp-shuffle-reduction, sum): reduce within each warp with shuffles,
    // then the warps' partial results with the first warp; sdata[0] holds the result.
    float wl_v = sdata[threadIdx.x];
    for (int wl_offset = 16; wl_offset > 0; wl_offset >>= 1) wl_v = wl_v + __shfl_down_sync(0xffffffffu, wl_v, wl_offset);
    __shared__ float wl_warp_partials[32];
    if ((threadIdx.x & 31) == 0) wl_warp_partials[threadIdx.x >> 5] = wl_v;
    __syncthreads();
    if (threadIdx.x < 32) {
      wl_v = threadIdx.x < (blockDim.x >> 5) ? wl_warp_partials[threadIdx.x] : float(0);
      for (int wl_offset = 16; wl_offset > 0; wl_offset >>= 1) wl_v = wl_v + __shfl_down_sync(0xffffffffu, wl_v, wl_offset);
      if (threadIdx.x == 0) sdata[0] = wl_v;
    }
    __syncthreads();
  }
  if (tid == 0) atomicAdd(sum, sdata[0]);
}

void reduce(const float* in, float* sum, int n) {
  const int threads = 256;
  cudaMemsetAsync(sum, 0, sizeof(float));
  reduce_interleaved<<<(n + threads - 1) / threads, threads, threads * sizeof(float)>>>(in, sum, n);
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 64 << 20;
  std::vector<float> h(n);
  for (int i = 0; i < n; ++i) h[i] = static_cast<float>((i * 7919) % 2001 - 1000) * 0.001f;
  float *in, *sum;
  cudaMalloc(&in, n * sizeof(float));
  cudaMalloc(&sum, sizeof(float));
  cudaMemcpy(in, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  reduce(in, sum, n);
  float got = 0;
  cudaMemcpy(&got, sum, sizeof(float), cudaMemcpyDeviceToHost);
  std::printf("sum of %d floats: %.6f\n", n, got);
  cudaFree(in);
  cudaFree(sum);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
