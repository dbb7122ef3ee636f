// warplens candidate c13 for kernel `histogram` (policy builtin)
// plan: block-size(x=128, y=1)
// block-size: block 256x1 -> 128x1 (the kernel is block-size agnostic)
// note: block-size: block-size agnostic: thread identity only through global indices, bounds-checked, launch grids cover the bound
// warplens-launch: kernel=histogram block=128,1,1 swap-xy=0 scale=1/1,1/1,1/1 persistent=0
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

__global__ void histogram(const unsigned char* data, unsigned int* bins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&bins[data[i]], 1u);
}

void hist(const unsigned char* d, unsigned int* bins, int n) {
  histogram<<<wl_launch::grid(dim3((n + 255) / 256), dim3(256), dim3(128, 1, 1), false, 1, 1, 1, 1, 1, 1, 0), dim3(128, 1, 1)>>>(d, bins, n);
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
