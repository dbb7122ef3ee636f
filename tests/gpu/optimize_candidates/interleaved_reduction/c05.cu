// warplens candidate c05 for kernel `reduce_interleaved` (policy builtin)
// plan: warp-shuffle-reduction() + reduction-grid-stride(blocks-per-sm=8, vector=4) + unroll(factor=8)
// warp-shuffle-reduction: tree reduction over `sdata` in 8 barrier-separated steps for blocks of 256: shuffles need two barriers; reduction-grid-stride: one element per thread and one atomic per block: accumulate 4-wide loads in a grid-stride loop over at most 8 blocks per SM; unroll: 4 innermost loop(s) without #pragma unroll
// note: warp-shuffle-reduction: the replaced loop was executed symbolically for blocks of 256: it reduces every slot into [0] exactly once, race-free
// note: warp-shuffle-reduction: afterwards only sdata[0] is read; floating-point sums are reassociated
// note: reduction-grid-stride: elements meet only through additions (thread, block sum, atomicAdd into a block-independent address): any distribution over threads gives the same total, up to rounding order
// note: reduction-grid-stride: grid-stride accumulation: every element below the bound is added once, for any grid
// note: unroll: unrolling keeps every iteration (the compiler handles remainders)
// warplens-launch: kernel=reduce_interleaved block=same swap-xy=0 scale=1/1,1/1,1/1 persistent=8
// Sum of a large array, the textbook first attempt: each block loads one
// element per thread into shared memory and reduces it with interleaved
// addressing (`tid % (2 * s) == 0`), which leaves most lanes of every warp
// idle and serialises on the barrier; block sums are added atomically.
#include "harness.cuh"

#ifndef WARPLENS_LAUNCH_HELPERS
#define WARPLENS_LAUNCH_HELPERS
// Added by warplens: launch shapes for rewritten kernels. wl_launch::grid
// applies the documented rule (docs/optimize.md, "Launch changes"): scale the
// threads per dimension, cover them with the new block, cap persistent grids.
namespace wl_launch {
inline unsigned cover(unsigned long long threads, unsigned block) {
  unsigned long long g = (threads + block - 1) / block;
  return g == 0 ? 1u : static_cast<unsigned>(g);
}
inline dim3 swap_xy(dim3 d) { return dim3(d.y, d.x, d.z); }
inline dim3 grid(dim3 g, dim3 b, dim3 nb, bool swap, long long xn, long long xd, long long yn, long long yd,
                 long long zn, long long zd, int blocks_per_sm) {
  if (swap) {
    g = swap_xy(g);
    b = swap_xy(b);
  }
  dim3 r(cover((1ull * g.x * b.x * xn + xd - 1) / xd, nb.x), cover((1ull * g.y * b.y * yn + yd - 1) / yd, nb.y),
         cover((1ull * g.z * b.z * zn + zd - 1) / zd, nb.z));
  if (blocks_per_sm > 0) {
    static int sms = 0;
    if (sms == 0) {
      int dev = 0;
      cudaGetDevice(&dev);
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
      if (sms <= 0) sms = 1;
    }
    const unsigned cap = static_cast<unsigned>(sms * blocks_per_sm);
    if (r.x > cap) r.x = cap;
  }
  return r;
}
}  // namespace wl_launch
#endif

// Added by warplens (vectorize): `V` consecutive elements in one 8/16/32-byte access.
template <int V, typename T>
__device__ __forceinline__ void wl_vector_load(T (&dst)[V], const T* src) {
  if constexpr (sizeof(T) * V == 16) {
    *reinterpret_cast<uint4*>(dst) = *reinterpret_cast<const uint4*>(src);
  } else if constexpr (sizeof(T) * V == 8) {
    *reinterpret_cast<uint2*>(dst) = *reinterpret_cast<const uint2*>(src);
  } else if constexpr (sizeof(T) * V == 32) {
    reinterpret_cast<uint4*>(dst)[0] = reinterpret_cast<const uint4*>(src)[0];
    reinterpret_cast<uint4*>(dst)[1] = reinterpret_cast<const uint4*>(src)[1];
  } else {
    for (int k = 0; k < V; ++k) dst[k] = src[k];
  }
}
template <int V, typename T>
__device__ __forceinline__ void wl_vector_store(T* dst, const T (&src)[V]) {
  if constexpr (sizeof(T) * V == 16) {
    *reinterpret_cast<uint4*>(dst) = *reinterpret_cast<const uint4*>(src);
  } else if constexpr (sizeof(T) * V == 8) {
    *reinterpret_cast<uint2*>(dst) = *reinterpret_cast<const uint2*>(src);
  } else if constexpr (sizeof(T) * V == 32) {
    reinterpret_cast<uint4*>(dst)[0] = reinterpret_cast<const uint4*>(src)[0];
    reinterpret_cast<uint4*>(dst)[1] = reinterpret_cast<const uint4*>(src)[1];
  } else {
    for (int k = 0; k < V; ++k) dst[k] = src[k];
  }
}
__global__ void reduce_interleaved(const float* in, float* sum, int n) {
  extern __shared__ float sdata[];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  {
    // Rewritten by warplens (reduction-grid-stride): each thread accumulates a grid-stride
    // share of the elements before the block reduction.
    float wl_acc = float(0);
    const long long wl_n = static_cast<long long>(n);
    const long long wl_t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    const long long wl_stride = static_cast<long long>(gridDim.x) * blockDim.x;
    const long long wl_nv = reinterpret_cast<unsigned long long>(in) % 16 == 0 ? wl_n / 4 : 0;
    #pragma unroll 8
    for (long long wl_q = wl_t; wl_q < wl_nv; wl_q += wl_stride) {
      float wl_e[4];
      wl_vector_load<4>(wl_e, in + wl_q * 4);
      wl_acc += wl_e[0] + wl_e[1] + wl_e[2] + wl_e[3];
    }
    #pragma unroll 8
    for (long long wl_k = wl_nv * 4 + wl_t; wl_k < wl_n; wl_k += wl_stride) {
      const unsigned int i = static_cast<unsigned int>(wl_k);
      wl_acc += in[i];
    }
    sdata[tid] = wl_acc;
  }
  __syncthreads();
  {
    // Rewritten by warplens (warp-shuffle-reduction, sum): reduce within each warp with shuffles,
    // then the warps' partial results with the first warp; sdata[0] holds the result.
    float wl_v = sdata[threadIdx.x];
    #pragma unroll 8
    for (int wl_offset = 16; wl_offset > 0; wl_offset >>= 1) wl_v = wl_v + __shfl_down_sync(0xffffffffu, wl_v, wl_offset);
    __shared__ float wl_warp_partials[32];
    if ((threadIdx.x & 31) == 0) wl_warp_partials[threadIdx.x >> 5] = wl_v;
    __syncthreads();
    if (threadIdx.x < 32) {
      wl_v = threadIdx.x < (blockDim.x >> 5) ? wl_warp_partials[threadIdx.x] : float(0);
      #pragma unroll 8
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
  reduce_interleaved<<<wl_launch::grid(dim3((n + threads - 1) / threads), dim3(threads), dim3(threads), false, 1, 1, 1, 1, 1, 1, 8), threads, threads * sizeof(float)>>>(in, sum, n);
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
