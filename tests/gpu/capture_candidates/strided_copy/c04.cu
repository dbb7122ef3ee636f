// warplens candidate c04 for kernel `scale_copy_chunked` (policy builtin)
// plan: warp-per-row(cache=0, lanes=32) + unroll(factor=4)
// warp-per-row: thread-per-row work in 1 loop(s): lanes of a warp access `out[t * CHUNK + k]` a row apart; a warp per row walks each row contiguously; unroll: 1 innermost loop(s) without #pragma unroll
// note: warp-per-row: each row is handled by one full warp (blocks are multiples of 32); the row guard is uniform across the warp
// note: warp-per-row: reductions combine only by sum, max or min, and every lane receives the total; element-wise loops write one element per iteration (followed through pointer locals to the parameter) and read what they write only there; stores outside loops run once, in lane 0; statements that change locals only run in every lane on equal values; __syncwarp(); orders stores before later reads by other lanes
// note: warp-per-row: the launch grid covers the rows, and starts 32x the threads
// note: unroll: unrolling keeps every iteration (the compiler handles remainders)
// warplens-launch: kernel=scale_copy_chunked block=same swap-xy=0 scale=32/1,1/1,1/1 persistent=0
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

__global__ void scale_copy_chunked(const float* in, float* out, float scale, int chunks) {
  int t = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int wl_lane = static_cast<int>((blockIdx.x * blockDim.x + threadIdx.x) % 32);
  if (t < chunks) {
    #pragma unroll 4
    for (int k = (0) + wl_lane; k < CHUNK; k += 32) {
      out[t * CHUNK + k] = in[t * CHUNK + k] * scale;
    }
  }
}

void scale_copy(const float* in, float* out, float scale, int n) {
  int chunks = n / CHUNK;
  int threads = 256;
  scale_copy_chunked<<<wl_launch::grid(dim3((chunks + threads - 1) / threads), dim3(threads), dim3(threads), false, 32, 1, 1, 1, 1, 1, 0), threads>>>(in, out, scale, chunks);
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
