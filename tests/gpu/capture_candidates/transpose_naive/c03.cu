// warplens candidate c03 for kernel `transpose_naive` (policy builtin)
// plan: stage-shared-tile(rows=16)
// stage-shared-tile: `out[x * H + y]` is strided across the lanes of a warp while the other access is contiguous: stage 32x32 tiles through shared memory (block 32x16)
// note: stage-shared-tile: each block covers one 32x32 tile; the launch grids provably cover both bounds, so the same (x, y) pairs pass the same guard
// note: stage-shared-tile: element-wise: one load and one store per (x, y), no other per-thread state
// warplens-launch: kernel=transpose_naive block=32,16,1 swap-xy=0 scale=1/1,1/2,1/1 persistent=0
// Naive matrix transpose, one thread per element: the store is uncoalesced.
// usage: transpose_naive [W H]
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

__global__ void transpose_naive(const float* in, float* out, int W, int H) {
  // Rewritten by warplens (stage-shared-tile): each block moves one 32x32 tile through shared
  // memory so that both global accesses are coalesced; 33 columns avoid bank conflicts.
  __shared__ float wl_tile[32][33];
  for (int wl_r = 0; wl_r < 32; wl_r += 16) {
    {
      const int x = blockIdx.x * 32 + threadIdx.x;
      const int y = blockIdx.y * 32 + threadIdx.y + wl_r;
      if (x < W && y < H) wl_tile[threadIdx.y + wl_r][threadIdx.x] = in[y * W + x];
    }
  }
  __syncthreads();
  for (int wl_r = 0; wl_r < 32; wl_r += 16) {
    {
      const int x = blockIdx.x * 32 + threadIdx.y + wl_r;
      const int y = blockIdx.y * 32 + threadIdx.x;
      if (x < W && y < H) out[x * H + y] = wl_tile[threadIdx.x][threadIdx.y + wl_r];
    }
  }
}

void transpose(const float* in, float* out, int W, int H) {
  dim3 block(16, 16);
  dim3 grid((W + block.x - 1) / block.x, (H + block.y - 1) / block.y);
  transpose_naive<<<wl_launch::grid(dim3(grid), dim3(block), dim3(32, 16, 1), false, 1, 1, 1, 2, 1, 1, 0), dim3(32, 16, 1)>>>(in, out, W, H);
}

int main(int argc, char** argv) {
  const int W = argc > 2 ? std::atoi(argv[1]) : 8192, H = argc > 2 ? std::atoi(argv[2]) : 8192;
  const size_t n = static_cast<size_t>(W) * H;
  std::vector<float> h(n);
  for (size_t i = 0; i < n; ++i) h[i] = static_cast<float>((i * 2654435761u) % 1000) * 0.001f - 0.5f;
  float *in, *out;
  cudaMalloc(&in, n * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  cudaMemcpy(in, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  transpose(in, out, W, H);
  cudaMemcpy(h.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost);
  double sum = 0;
  for (size_t i = 0; i < n; ++i) sum += h[i] * static_cast<double>(i % 7);
  std::printf("transpose %dx%d checksum %.6f\n", W, H, sum);
  cudaFree(in);
  cudaFree(out);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
