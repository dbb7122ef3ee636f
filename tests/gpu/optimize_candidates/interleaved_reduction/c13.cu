// warplens candidate c13 for kernel `reduce_interleaved` (policy builtin)
// plan: warp-shuffle-reduction() + restrict-const() + unroll(factor=4)
// warp-shuffle-reduction: tree reduction over `sdata` in 8 barrier-separated steps for blocks of 256: shuffles need two barriers; restrict-const: 1 pointer parameter(s) gain const/__restrict__; unroll: 2 innermost loop(s) without #pragma unroll
// note: warp-shuffle-reduction: the replaced loop was executed symbolically for blocks of 256: it reduces every slot into [0] exactly once, race-free
// note: warp-shuffle-reduction: afterwards only sdata[0] is read; floating-point sums are reassociated
// note: restrict-const: every launch in the file passes distinct pointer variables (no aliasing)
// note: restrict-const: const added only to pointers the kernel never writes through
// note: unroll: unrolling keeps every iteration (the compiler handles remainders)
// Sum of a large array, the textbook first attempt: each block loads one
// element per thread into shared memory and reduces it with interleaved
// addressing (`tid % (2 * s) == 0`), which leaves most lanes of every warp
// idle and serialises on the barrier; block sums are added atomically.
#include "harness.cuh"

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
    #pragma unroll 4
    for (int wl_offset = 16; wl_offset > 0; wl_offset >>= 1) wl_v = wl_v + __shfl_down_sync(0xffffffffu, wl_v, wl_offset);
    __shared__ float wl_warp_partials[32];
    if ((threadIdx.x & 31) == 0) wl_warp_partials[threadIdx.x >> 5] = wl_v;
    __syncthreads();
    if (threadIdx.x < 32) {
      wl_v = threadIdx.x < (blockDim.x >> 5) ? wl_warp_partials[threadIdx.x] : float(0);
      #pragma unroll 4
      for (int wl_offset = 16; wl_offset > 0; wl_offset >>= 1) wl_v = wl_v + __shfl_down_sync(0xffffffffu, wl_v, wl_offset);
      if (threadIdx.x == 0) sdata[0] = wl_v;
    }
    __syncthreads();
  }
  if (tid == 0) atomicAdd(sum, sdata[0]);
}

void reduce(const float* in, float* sum, int n) {
  const int threads = 256;
  WL_CHECK(cudaMemsetAsync(sum, 0, sizeof(float)));
  reduce_interleaved<<<(n + threads - 1) / threads, threads, threads * sizeof(float)>>>(in, sum, n);
}

int main(int argc, char** argv) {
  example::Run run(argc, argv, "interleaved_reduction");
  const int full_n = 64 << 20;
  const int odd_n[] = {1000003, 257, 31, 65537};
  for (int set = 0; set < run.sets(); ++set) {
    const int n = set == 0 ? full_n : odd_n[(set - 1) % 4];
    float* in = example::device_alloc<float>(n);
    float* sum = example::device_alloc<float>(1);
    std::vector<float> h_in = example::fill_uniform(in, n, run.seed(set));
    example::poison(sum, sizeof(float));
    reduce(in, sum, n);
    run.sync("reduce");
    double want = 0, magnitude = 0;
    for (float v : h_in) {
      want += v;
      magnitude += std::fabs(v);
    }
    // Any summation order is acceptable: tolerance relative to sum(|x|).
    std::vector<float> got = example::to_host(sum, 1);
    run.check(set, "sum", example::compare(got, std::vector<double>{want}, 0.0, 1e-6 * magnitude + 1e-6));
    run.check(set, "in (must be unchanged)", example::compare(example::to_host(in, n), h_in, 0.0, 0.0));
    WL_CHECK(cudaFree(in));
    WL_CHECK(cudaFree(sum));
  }
  if (run.timing()) {
    float* in = example::device_alloc<float>(full_n);
    float* sum = example::device_alloc<float>(1);
    example::fill_uniform(in, full_n, run.seed(0));
    run.time([&] { reduce(in, sum, full_n); });
    WL_CHECK(cudaFree(in));
    WL_CHECK(cudaFree(sum));
  }
  return run.finish(1.0 * full_n * sizeof(float), 1.0 * full_n);
}
