// warplens candidate c08 for kernel `scale_copy_chunked` (policy builtin)
// plan: interleave-chunks() + restrict-const() + block-size(x=128, y=1)
// interleave-chunks: thread-per-chunk loop: lanes access `out[t * CHUNK + k]` CHUNK elements apart; interleaving makes each step coalesced; restrict-const: 2 pointer parameter(s) gain const/__restrict__; block-size: block 256x1 -> 128x1 (the kernel is block-size agnostic)
// note: interleave-chunks: element k*T + t replaces t*K + k: the same T*K elements, each processed once
// note: interleave-chunks: the loop body is element-wise (no state carried between elements, t and k only in subscripts)
// note: restrict-const: every launch in the file passes distinct pointer variables (no aliasing)
// note: restrict-const: const added only to pointers the kernel never writes through
// note: block-size: block-size agnostic: thread identity only through global indices, bounds-checked, launch grids cover the bound
// warplens-launch: kernel=scale_copy_chunked block=128,1,1 swap-xy=0 scale=1/1,1/1,1/1 persistent=0
// Chunked scale-copy: each thread copies a contiguous chunk, so a warp's
// lanes are CHUNK floats apart at every step.
// usage: strided_copy [n]
#include <cstdio>
#include <cstdlib>
#include <vector>

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

__global__ void scale_copy_chunked(const float* __restrict__ in, float* __restrict__ out, float scale, int chunks) {
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
  scale_copy_chunked<<<wl_launch::grid(dim3((chunks + threads - 1) / threads), dim3(threads), dim3(128, 1, 1), false, 1, 1, 1, 1, 1, 1, 0), dim3(128, 1, 1)>>>(in, out, scale, chunks);
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 64 << 20;
  std::vector<float> h(n);
  for (int i = 0; i < n; ++i) h[i] = static_cast<float>(i % 1024) * 0.25f - 128.0f;
  float *in, *out;
  cudaMalloc(&in, n * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  cudaMemcpy(in, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  scale_copy(in, out, 1.5f, n);
  cudaMemcpy(h.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost);
  double sum = 0;
  for (int i = 0; i < n; ++i) sum += h[i];
  std::printf("scale_copy %d checksum %.6f\n", n, sum);
  cudaFree(in);
  cudaFree(out);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
