// warplens candidate c14 for kernel `scale_copy_chunked` (policy builtin)
// plan: interleave-chunks() + block-size(x=512, y=1)
// interleave-chunks: thread-per-chunk loop: lanes access `out[t * CHUNK + k]` CHUNK elements apart; interleaving makes each step coalesced; block-size: block 256x1 -> 512x1 (the kernel is block-size agnostic)
// note: interleave-chunks: element k*T + t replaces t*K + k: the same T*K elements, each processed once
// note: interleave-chunks: the loop body is element-wise (no state carried between elements, t and k only in subscripts)
// note: block-size: block-size agnostic: thread identity only through global indices, bounds-checked, launch grids cover the bound
// warplens-launch: kernel=scale_copy_chunked block=512,1,1 swap-xy=0 scale=1/1,1/1,1/1 persistent=0
// Chunked scale-copy: each thread handles a contiguous chunk of CHUNK
// elements. That looks cache-friendly on a CPU, but on a GPU the 32 lanes of
// a warp touch addresses CHUNK * 4 bytes apart at every step of the loop, so
// each warp request spans 32 sectors instead of 4.
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

constexpr int CHUNK = 16;

__global__ void scale_copy_chunked(const float* in, float* out, float scale, int chunks) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < chunks) {
    for (int k = 0; k < CHUNK; ++k) {
      const auto wl_j = k * (chunks) + t;
      out[wl_j + (0 * CHUNK + 0)] = in[wl_j + (0 * CHUNK + 0)] * scale;
    }
  }
}

void scale_copy(const float* in, float* out, float scale, int n) {
  int chunks = n / CHUNK;
  int threads = 256;
  scale_copy_chunked<<<wl_launch::grid(dim3((chunks + threads - 1) / threads), dim3(threads), dim3(512, 1, 1), false, 1, 1, 1, 1, 1, 1, 0), dim3(512, 1, 1)>>>(in, out, scale, chunks);
}

int main(int argc, char** argv) {
  example::Run run(argc, argv, "strided_copy");
  const int full_n = 64 << 20;
  const int odd_chunks[] = {1001, 4099, 33, 257};
  const float scale = 1.7f;
  for (int set = 0; set < run.sets(); ++set) {
    const int n = set == 0 ? full_n : odd_chunks[(set - 1) % 4] * CHUNK;
    float* in = example::device_alloc<float>(n);
    float* out = example::device_alloc<float>(n);
    std::vector<float> h_in = example::fill_uniform(in, n, run.seed(set));
    example::poison(out, n * sizeof(float));
    scale_copy(in, out, scale, n);
    run.sync("scale_copy");
    std::vector<float> got = example::to_host(out, n), want(n);
    for (int i = 0; i < n; ++i) want[i] = h_in[i] * scale;
    run.check(set, "out", example::compare(got, want, 1e-6, 0.0));
    run.check(set, "in (must be unchanged)", example::compare(example::to_host(in, n), h_in, 0.0, 0.0));
    WL_CHECK(cudaFree(in));
    WL_CHECK(cudaFree(out));
  }
  if (run.timing()) {
    float* in = example::device_alloc<float>(full_n);
    float* out = example::device_alloc<float>(full_n);
    example::fill_uniform(in, full_n, run.seed(0));
    run.time([&] { scale_copy(in, out, scale, full_n); });
    WL_CHECK(cudaFree(in));
    WL_CHECK(cudaFree(out));
  }
  return run.finish(2.0 * full_n * sizeof(float), 1.0 * full_n);
}
