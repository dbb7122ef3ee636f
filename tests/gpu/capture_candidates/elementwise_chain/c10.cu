// warplens candidate c10 for kernel `bias_relu` (policy builtin)
// plan: block-size(x=128, y=1)
// block-size: block 256x1 -> 128x1 (the kernel is block-size agnostic)
// note: block-size: block-size agnostic: thread identity only through global indices, bounds-checked, launch grids cover the bound
// warplens-launch: kernel=bias_relu block=128,1,1 swap-xy=0 scale=1/1,1/1,1/1 persistent=0
// out = relu(x * y + bias) as two kernels through a temporary buffer.
// usage: elementwise_chain [n]
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
  const int n = argc > 1 ? std::atoi(argv[1]) : 64 << 20;
  const float bias = 0.1f;
  const int threads = 256;
  std::vector<float> hx(n), hy(n);
  for (int i = 0; i < n; ++i) {
    hx[i] = static_cast<float>(i % 2003) * 0.001f - 1.0f;
    hy[i] = static_cast<float>((i * 13) % 997) * 0.002f - 1.0f;
  }
  float *d_x, *d_y, *d_tmp, *d_out;
  cudaMalloc(&d_x, n * sizeof(float));
  cudaMalloc(&d_y, n * sizeof(float));
  cudaMalloc(&d_tmp, n * sizeof(float));
  cudaMalloc(&d_out, n * sizeof(float));
  cudaMemcpy(d_x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(d_y, hy.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  const int blocks = (n + threads - 1) / threads;
  mul<<<blocks, threads>>>(d_x, d_y, d_tmp, n);
  bias_relu<<<wl_launch::grid(dim3(blocks), dim3(threads), dim3(128, 1, 1), false, 1, 1, 1, 1, 1, 1, 0), dim3(128, 1, 1)>>>(d_tmp, bias, d_out, n);
  cudaMemcpy(hx.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost);
  double sum = 0;
  for (int i = 0; i < n; ++i) sum += hx[i];
  std::printf("chain %d checksum %.6f\n", n, sum);
  cudaFree(d_x);
  cudaFree(d_y);
  cudaFree(d_tmp);
  cudaFree(d_out);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
