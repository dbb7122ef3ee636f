// warplens candidate c13 for kernel `bias_relu_rows` (policy builtin)
// plan: restrict-const() + vectorize(shrink-grid=1, width=4) + unroll(factor=2)
// restrict-const: 3 pointer parameter(s) gain const/__restrict__; vectorize: 2 array(s) accessed one element per thread: 4 elements per access, 4x fewer threads; unroll: 1 innermost loop(s) without #pragma unroll
// note: restrict-const: every launch in the file passes distinct pointer variables (no aliasing)
// note: restrict-const: const added only to pointers the kernel never writes through
// note: vectorize: grid-stride loop: every element below the bound is processed once, for any grid
// note: vectorize: vector accesses only when every pointer is aligned to the access size; otherwise, and for the tail, the original scalar code
// note: unroll: unrolling keeps every iteration (the compiler handles remainders)
// warplens-launch: kernel=bias_relu_rows block=same swap-xy=0 scale=1/4,1/1,1/1 persistent=0
// A linear layer's epilogue written as two kernels: `mul_rows` materialises
// a * b in a temporary that `bias_relu_rows` reads straight back, adding a
// per-column bias (a broadcast operand, bias[i % cols]) before the ReLU.
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

__global__ void mul_rows(const float* a, const float* b, float* t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) t[i] = a[i] * b[i];
}

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
__global__ void bias_relu_rows(const float* __restrict__ t, const float* __restrict__ bias, float* __restrict__ c, int n, int cols) {
  // Rewritten by warplens (vectorize, width 4): grid-stride over groups of 4 elements,
  // one vector access per array; scalar loop for the tail and misaligned pointers.
  const long long wl_n = static_cast<long long>(n);
  const long long wl_stride = static_cast<long long>(gridDim.x) * blockDim.x;
  const long long wl_t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const long long wl_vec_end = (true && reinterpret_cast<unsigned long long>(c) % 16 == 0 && reinterpret_cast<unsigned long long>(t) % 16 == 0) ? wl_n / 4 * 4 : 0;
  for (long long wl_v = wl_t * 4; wl_v < wl_vec_end; wl_v += wl_stride * 4) {
    float wl_c2[4];
    float wl_t2[4];
    wl_vector_load<4>(wl_t2, t + wl_v);
#pragma unroll
    for (int wl_c = 0; wl_c < 4; ++wl_c) {
      const int i = static_cast<int>(wl_v + wl_c);
      (void)i;
      {
        wl_c2[wl_c] = fmaxf(wl_t2[wl_c] + bias[i % cols], 0.0f);
      }
    }
    wl_vector_store<4>(c + wl_v, wl_c2);
  }
  #pragma unroll 2
  for (long long wl_s = wl_vec_end + wl_t; wl_s < wl_n; wl_s += wl_stride) {
    const int i = static_cast<int>(wl_s);
    {
      c[i] = fmaxf(t[i] + bias[i % cols], 0.0f);
    }
  }
}

int main(int argc, char** argv) {
  example::Run run(argc, argv, "bias_relu_broadcast");
  const int full_rows = 16384, full_cols = 4096;
  const int odd[][2] = {{1001, 999}, {3, 4099}, {31, 1}, {517, 7}};
  const int threads = 256;
  for (int set = 0; set < run.sets(); ++set) {
    const int R = set == 0 ? full_rows : odd[(set - 1) % 4][0];
    const int cols = set == 0 ? full_cols : odd[(set - 1) % 4][1];
    const int n = R * cols;
    float* a = example::device_alloc<float>(n);
    float* b = example::device_alloc<float>(n);
    float* bias = example::device_alloc<float>(cols);
    float* c = example::device_alloc<float>(n);
    float* t = example::device_alloc<float>(n);
    std::vector<float> ha = example::fill_uniform(a, n, run.seed(set) * 3);
    std::vector<float> hb = example::fill_uniform(b, n, run.seed(set) * 3 + 1);
    std::vector<float> hbias = example::fill_uniform(bias, cols, run.seed(set) * 3 + 2);
    example::poison(c, n * sizeof(float));
    const int blocks = (n + threads - 1) / threads;
    mul_rows<<<blocks, threads>>>(a, b, t, n);
    bias_relu_rows<<<wl_launch::grid(dim3(blocks), dim3(threads), dim3(threads), false, 1, 4, 1, 1, 1, 1, 0), threads>>>(t, bias, c, n, cols);
    run.sync("bias_relu");
    std::vector<float> got = example::to_host(c, n), want(n);
    for (int i = 0; i < n; ++i) want[i] = std::max(ha[i] * hb[i] + hbias[i % cols], 0.0f);
    run.check(set, "c", example::compare(got, want, 1e-6, 1e-7));
    run.check(set, "a (must be unchanged)", example::compare(example::to_host(a, n), ha, 0.0, 0.0));
    WL_CHECK(cudaFree(a));
    WL_CHECK(cudaFree(b));
    WL_CHECK(cudaFree(bias));
    WL_CHECK(cudaFree(c));
    WL_CHECK(cudaFree(t));
  }
  const int n = full_rows * full_cols;
  if (run.timing()) {
    float* a = example::device_alloc<float>(n);
    float* b = example::device_alloc<float>(n);
    float* bias = example::device_alloc<float>(full_cols);
    float* c = example::device_alloc<float>(n);
    float* t = example::device_alloc<float>(n);
    example::fill_uniform(a, n, run.seed(0) * 3);
    example::fill_uniform(b, n, run.seed(0) * 3 + 1);
    example::fill_uniform(bias, full_cols, run.seed(0) * 3 + 2);
    const int blocks = (n + threads - 1) / threads;
    const int cols = full_cols;
    run.time([&] {
      mul_rows<<<blocks, threads>>>(a, b, t, n);
      bias_relu_rows<<<wl_launch::grid(dim3(blocks), dim3(threads), dim3(threads), false, 1, 4, 1, 1, 1, 1, 0), threads>>>(t, bias, c, n, cols);
    });
    WL_CHECK(cudaFree(a));
    WL_CHECK(cudaFree(b));
    WL_CHECK(cudaFree(bias));
    WL_CHECK(cudaFree(c));
    WL_CHECK(cudaFree(t));
  }
  return run.finish(3.0 * n * sizeof(float), 3.0 * n);
}
