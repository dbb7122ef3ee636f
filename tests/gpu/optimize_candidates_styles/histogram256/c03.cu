// warplens candidate c03 for kernel `histogram` (policy builtin)
// plan: privatize-atomics(bins=256, blocks-per-sm=4)
// privatize-atomics: 1 global atomicAdd(s) into `bins` per element (bins below 256): a per-block copy of 256 bins in shared memory, one global add per bin per block, 4 blocks per SM in a grid-stride loop
// note: privatize-atomics: the element-wise work runs in a grid-stride loop: every element below the bound once, for any grid; the launch is persistent
// note: privatize-atomics: every access to `bins` is an atomicAdd statement; bins outside [0, 256) still add to `bins` directly, so every add reaches the same element as before
// note: privatize-atomics: the per-block copy starts at zero, a barrier separates the adds from the flush, and only nonzero slots (elements the block added to) are added to `bins`
// note: privatize-atomics: no barrier, shared memory or warp primitive in the original
// warplens-launch: kernel=histogram block=same swap-xy=0 scale=1/1,1/1,1/1 persistent=4
// A 256-bin histogram of bytes with one global atomicAdd per element. Image
// and text data crowd into few bins: here half of the bytes fall into 8 bins,
// so thousands of threads queue on the same counters.
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

// Added by warplens (privatize-atomics): an add to the block's copy when the bin is in it, else to the array.
template <int N, typename T, typename V>
__device__ __forceinline__ void wl_private_add(T* block_copy, T* array, long long bin, V v) {
  if (bin >= 0 && bin < N)
    atomicAdd(&block_copy[bin], static_cast<T>(v));
  else
    atomicAdd(&array[bin], static_cast<T>(v));
}

__global__ void histogram(const unsigned char* data, unsigned int* bins, int n) {
  // Rewritten by warplens (privatize-atomics): adds go to a per-block copy of `bins` in shared memory;
  // each block adds its nonzero bins to `bins` once.
  __shared__ unsigned int wl_hist[256];
  const unsigned wl_tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const unsigned wl_threads = blockDim.x * blockDim.y * blockDim.z;
  for (unsigned wl_slot = wl_tid; wl_slot < 256; wl_slot += wl_threads) wl_hist[wl_slot] = static_cast<unsigned int>(0);
  __syncthreads();
  for (long long wl_g = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; wl_g < static_cast<long long>(n); wl_g += static_cast<long long>(gridDim.x) * blockDim.x) {
    const int i = static_cast<int>(wl_g);
    wl_private_add<256>(wl_hist, bins, static_cast<long long>(data[i]), 1u);
  }
  __syncthreads();
  for (unsigned wl_slot = wl_tid; wl_slot < 256; wl_slot += wl_threads)
    if (wl_hist[wl_slot] != static_cast<unsigned int>(0)) atomicAdd(&bins[wl_slot], wl_hist[wl_slot]);
}

void hist(const unsigned char* d, unsigned int* bins, int n) {
  histogram<<<wl_launch::grid(dim3((n + 255) / 256), dim3(256), dim3(256), false, 1, 1, 1, 1, 1, 1, 4), 256>>>(d, bins, n);
}

__global__ void fill_bytes(unsigned char* p, int n, std::uint64_t seed) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    const std::uint64_t h = example::mix64(seed * 0x100000001B3ull ^ static_cast<std::uint64_t>(i));
    p[i] = (h & 1) ? static_cast<unsigned char>(96 + ((h >> 8) & 7)) : static_cast<unsigned char>(h >> 16);
  }
}

int main(int argc, char** argv) {
  example::Run run(argc, argv, "histogram256");
  const int full_n = 64 << 20;
  const int odd_n[] = {1000003, 257, 31, 65537};
  for (int set = 0; set < run.sets(); ++set) {
    const int n = set == 0 ? full_n : odd_n[(set - 1) % 4];
    unsigned char* d = example::device_alloc<unsigned char>(n);
    unsigned int* bins = example::device_alloc<unsigned int>(256);
    fill_bytes<<<1024, 256>>>(d, n, run.seed(set));
    run.sync("fill");
    std::vector<unsigned char> hd = example::to_host(d, n);
    WL_CHECK(cudaMemset(bins, 0, 256 * sizeof(unsigned int)));
    hist(d, bins, n);
    run.sync("histogram");
    std::vector<unsigned int> got = example::to_host(bins, 256);
    std::vector<unsigned int> want(256, 0);
    for (int i = 0; i < n; ++i) ++want[hd[i]];
    run.check(set, "bins", example::compare(got, want, 0.0, 0.0));
    run.check(set, "data (must be unchanged)", example::compare(example::to_host(d, n), hd, 0.0, 0.0));
    WL_CHECK(cudaFree(d));
    WL_CHECK(cudaFree(bins));
  }
  if (run.timing()) {
    unsigned char* d = example::device_alloc<unsigned char>(full_n);
    unsigned int* bins = example::device_alloc<unsigned int>(256);
    fill_bytes<<<1024, 256>>>(d, full_n, run.seed(0));
    run.sync("fill");
    run.time([&] {
      WL_CHECK(cudaMemsetAsync(bins, 0, 256 * sizeof(unsigned int)));
      hist(d, bins, full_n);
    });
    WL_CHECK(cudaFree(d));
    WL_CHECK(cudaFree(bins));
  }
  return run.finish(static_cast<double>(full_n), static_cast<double>(full_n));
}
