// warplens candidate c05 for kernel `scale_copy_chunked` (policy builtin)
// plan: warp-per-row(cache=0, lanes=256)
// warp-per-row: thread-per-row work in 1 loop(s): lanes of a warp access `out[t * CHUNK + k]` a row apart; a block of 256 threads per row (for long rows), shuffle and shared reductions
// note: warp-per-row: each row is handled by one block of 256 threads: the row, and so the guard, is the block's, so every thread reaches the barriers of the block reductions
// note: warp-per-row: reductions combine only by sum, max or min, and every lane receives the total; element-wise loops write one element per iteration (followed through pointer locals to the parameter) and read what they write only there; stores outside loops run once, in lane 0; statements that change locals only run in every lane on equal values; __syncthreads(); orders stores before later reads by other lanes
// note: warp-per-row: the launch grid covers the rows, and starts 256x the threads
// warplens-launch: kernel=scale_copy_chunked block=256,1,1 swap-xy=0 scale=256/1,1/1,1/1 persistent=0
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
  int t = (blockIdx.x * blockDim.x + threadIdx.x) / 256;
  const int wl_lane = static_cast<int>((blockIdx.x * blockDim.x + threadIdx.x) % 256);
  if (t < chunks) {
    for (int k = (0) + wl_lane; k < CHUNK; k += 256) {
      out[t * CHUNK + k] = in[t * CHUNK + k] * scale;
    }
  }
}

void scale_copy(const float* in, float* out, float scale, int n) {
  int chunks = n / CHUNK;
  int threads = 256;
  scale_copy_chunked<<<wl_launch::grid(dim3((chunks + threads - 1) / threads), dim3(threads), dim3(256, 1, 1), false, 256, 1, 1, 1, 1, 1, 0), dim3(256, 1, 1)>>>(in, out, scale, chunks);
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
