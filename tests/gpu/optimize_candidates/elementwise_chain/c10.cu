// warplens candidate c10 for kernel `bias_relu` (policy builtin)
// plan: block-size(x=128, y=1)
// block-size: block 256x1 -> 128x1 (the kernel is block-size agnostic)
// note: block-size: block-size agnostic: thread identity only through global indices, bounds-checked, launch grids cover the bound
// warplens-launch: kernel=bias_relu block=128,1,1 swap-xy=0 scale=1/1,1/1,1/1 persistent=0
// An element-wise chain written as two kernels: `mul` materialises x * y in a
// temporary buffer that `bias_relu` reads straight back. The temporary costs
// a full write and a full read of n floats that a fused kernel never makes.
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

__global__ void mul(const float* x, const float* y, float* tmp, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) tmp[i] = x[i] * y[i];
}

__global__ void bias_relu(const float* t, float bias, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = t[i] + bias;
    out[i] = v > 0.0f ? v : 0.0f;
  }
}

int main(int argc, char** argv) {
  example::Run run(argc, argv, "elementwise_chain");
  const int full_n = 64 << 20;
  const int odd_n[] = {1000003, 257, 31, 65537};
  const float bias = 0.1f;
  const int threads = 256;
  for (int set = 0; set < run.sets(); ++set) {
    const int n = set == 0 ? full_n : odd_n[(set - 1) % 4];
    float* d_x = example::device_alloc<float>(n);
    float* d_y = example::device_alloc<float>(n);
    float* d_out = example::device_alloc<float>(n);
    float* d_tmp = example::device_alloc<float>(n);
    std::vector<float> hx = example::fill_uniform(d_x, n, run.seed(set) * 2);
    std::vector<float> hy = example::fill_uniform(d_y, n, run.seed(set) * 2 + 1);
    example::poison(d_out, n * sizeof(float));
    const int blocks = (n + threads - 1) / threads;
    mul<<<blocks, threads>>>(d_x, d_y, d_tmp, n);
    bias_relu<<<wl_launch::grid(dim3(blocks), dim3(threads), dim3(128, 1, 1), false, 1, 1, 1, 1, 1, 1, 0), dim3(128, 1, 1)>>>(d_tmp, bias, d_out, n);
    run.sync("chain");
    std::vector<float> got = example::to_host(d_out, n), want(n);
    for (int i = 0; i < n; ++i) want[i] = std::max(hx[i] * hy[i] + bias, 0.0f);
    run.check(set, "out", example::compare(got, want, 1e-6, 1e-7));
    run.check(set, "x (must be unchanged)", example::compare(example::to_host(d_x, n), hx, 0.0, 0.0));
    run.check(set, "y (must be unchanged)", example::compare(example::to_host(d_y, n), hy, 0.0, 0.0));
    WL_CHECK(cudaFree(d_x));
    WL_CHECK(cudaFree(d_y));
    WL_CHECK(cudaFree(d_out));
    WL_CHECK(cudaFree(d_tmp));
  }
  if (run.timing()) {
    const int n = full_n;
    float* x = example::device_alloc<float>(n);
    float* y = example::device_alloc<float>(n);
    float* out = example::device_alloc<float>(n);
    float* tmp = example::device_alloc<float>(n);
    example::fill_uniform(x, n, run.seed(0) * 2);
    example::fill_uniform(y, n, run.seed(0) * 2 + 1);
    const int blocks = (n + threads - 1) / threads;
    run.time([&] {
      mul<<<blocks, threads>>>(x, y, tmp, n);
      bias_relu<<<wl_launch::grid(dim3(blocks), dim3(threads), dim3(128, 1, 1), false, 1, 1, 1, 1, 1, 1, 0), dim3(128, 1, 1)>>>(tmp, bias, out, n);
    });
    WL_CHECK(cudaFree(x));
    WL_CHECK(cudaFree(y));
    WL_CHECK(cudaFree(out));
    WL_CHECK(cudaFree(tmp));
  }
  // The fewest bytes: read x and y, write out (the temporary is not needed).
  return run.finish(3.0 * full_n * sizeof(float), 3.0 * full_n);
}
