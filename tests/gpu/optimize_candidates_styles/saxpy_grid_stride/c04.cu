// warplens candidate c04 for kernel `saxpy_gs` (policy builtin)
// plan: vectorize(shrink-grid=1, width=4) + unroll(factor=8)
// vectorize: 2 array(s) accessed one element per thread: 4 elements per access, 4x fewer threads; unroll: 1 innermost loop(s) without #pragma unroll
// note: vectorize: grid-stride loop: every element below the bound is processed once, for any grid
// note: vectorize: vector accesses only when every pointer is aligned to the access size; otherwise, and for the tail, the original scalar code
// note: unroll: unrolling keeps every iteration (the compiler handles remainders)
// warplens-launch: kernel=saxpy_gs block=same swap-xy=0 scale=1/4,1/1,1/1 persistent=0
// y = a * x + y as a grid-stride loop written by hand, launched on a fixed
// grid: correct for any size, but one 4-byte load per array per element.
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
__global__ void saxpy_gs(int n, float a, const float* x, float* y) {
  // Rewritten by warplens (vectorize, width 4): grid-stride over groups of 4 elements,
  // one vector access per array; scalar loop for the tail and misaligned pointers.
  const long long wl_n = static_cast<long long>(n);
  const long long wl_stride = static_cast<long long>(gridDim.x) * blockDim.x;
  const long long wl_t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const long long wl_vec_end = (true && reinterpret_cast<unsigned long long>(y) % 16 == 0 && reinterpret_cast<unsigned long long>(x) % 16 == 0) ? wl_n / 4 * 4 : 0;
  for (long long wl_v = wl_t * 4; wl_v < wl_vec_end; wl_v += wl_stride * 4) {
    float wl_y[4];
    wl_vector_load<4>(wl_y, y + wl_v);
    float wl_x[4];
    wl_vector_load<4>(wl_x, x + wl_v);
#pragma unroll
    for (int wl_c = 0; wl_c < 4; ++wl_c) {
      const int i = static_cast<int>(wl_v + wl_c);
      (void)i;
      {
        wl_y[wl_c] = a * wl_x[wl_c] + wl_y[wl_c];
      }
    }
    wl_vector_store<4>(y + wl_v, wl_y);
  }
  #pragma unroll 8
  for (long long wl_s = wl_vec_end + wl_t; wl_s < wl_n; wl_s += wl_stride) {
    const int i = static_cast<int>(wl_s);
    {
      y[i] = a * x[i] + y[i];
    }
  }
}

void saxpy(int n, float a, const float* x, float* y) { saxpy_gs<<<wl_launch::grid(dim3(4096), dim3(256), dim3(256), false, 1, 4, 1, 1, 1, 1, 0), 256>>>(n, a, x, y); }

int main(int argc, char** argv) {
  example::Run run(argc, argv, "saxpy_grid_stride");
  const int full_n = 64 << 20;
  const int odd_n[] = {1000003, 257, 31, 65537};
  const float a = 1.25f;
  for (int set = 0; set < run.sets(); ++set) {
    const int n = set == 0 ? full_n : odd_n[(set - 1) % 4];
    float* x = example::device_alloc<float>(n);
    float* y = example::device_alloc<float>(n);
    std::vector<float> hx = example::fill_uniform(x, n, run.seed(set) * 2);
    std::vector<float> hy = example::fill_uniform(y, n, run.seed(set) * 2 + 1);
    saxpy(n, a, x, y);
    run.sync("saxpy");
    std::vector<float> got = example::to_host(y, n), want(n);
    for (int i = 0; i < n; ++i) want[i] = a * hx[i] + hy[i];
    run.check(set, "y", example::compare(got, want, 1e-6, 1e-7));
    run.check(set, "x (must be unchanged)", example::compare(example::to_host(x, n), hx, 0.0, 0.0));
    WL_CHECK(cudaFree(x));
    WL_CHECK(cudaFree(y));
  }
  if (run.timing()) {
    float* x = example::device_alloc<float>(full_n);
    float* y = example::device_alloc<float>(full_n);
    example::fill_uniform(x, full_n, run.seed(0) * 2);
    example::fill_uniform(y, full_n, run.seed(0) * 2 + 1);
    run.time([&] { saxpy(full_n, a, x, y); });
    WL_CHECK(cudaFree(x));
    WL_CHECK(cudaFree(y));
  }
  return run.finish(3.0 * full_n * sizeof(float), 2.0 * full_n);
}
