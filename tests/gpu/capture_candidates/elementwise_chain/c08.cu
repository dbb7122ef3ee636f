// warplens candidate c08 for kernel `bias_relu` (policy builtin)
// plan: fuse-elementwise() + vectorize(shrink-grid=1, width=4) + unroll(factor=8)
// fuse-elementwise: `mul` writes a temporary that `bias_relu` reads right back element by element (1 launch pair(s)): one fused pass saves a write and a read of it; vectorize: 3 array(s) accessed one element per thread: 4 elements per access, 4x fewer threads; unroll: 1 innermost loop(s) without #pragma unroll
// note: fuse-elementwise: both kernels are element-wise over the same index and bound; the launches are consecutive with identical configurations
// note: fuse-elementwise: the temporary's only other uses are its allocation and cudaFree: nothing else reads it
// note: fuse-elementwise: the temporary stays allocated and is passed to the fused kernel, unused
// note: vectorize: grid-stride loop: every element below the bound is processed once, for any grid
// note: vectorize: vector accesses only when every pointer is aligned to the access size; otherwise, and for the tail, the original scalar code
// note: unroll: unrolling keeps every iteration (the compiler handles remainders)
// warplens-launch: kernel=mul_bias_relu_fused block=same swap-xy=0 scale=1/4,1/1,1/1 persistent=0
// warplens-fused: kernel=mul_bias_relu_fused first=mul second=bias_relu params=A0,A1,A2,A3,B1,B2,B3 elides=A2
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

// Added by warplens (fuse-elementwise): `mul` and `bias_relu` in one pass; the temporary is neither written nor read.
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
__global__ void mul_bias_relu_fused(const float * wl_a_x, const float * wl_a_y, float * wl_a_tmp, int wl_a_n, float bias, float* out, int n) {
  // Rewritten by warplens (vectorize, width 4): grid-stride over groups of 4 elements,
  // one vector access per array; scalar loop for the tail and misaligned pointers.
  const long long wl_n = static_cast<long long>(n);
  const long long wl_stride = static_cast<long long>(gridDim.x) * blockDim.x;
  const long long wl_t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const long long wl_vec_end = (true && reinterpret_cast<unsigned long long>(wl_a_x) % 16 == 0 && reinterpret_cast<unsigned long long>(wl_a_y) % 16 == 0 && reinterpret_cast<unsigned long long>(out) % 16 == 0) ? wl_n / 4 * 4 : 0;
  for (long long wl_v = wl_t * 4; wl_v < wl_vec_end; wl_v += wl_stride * 4) {
    float wl_wl_a_x[4];
    wl_vector_load<4>(wl_wl_a_x, wl_a_x + wl_v);
    float wl_wl_a_y[4];
    wl_vector_load<4>(wl_wl_a_y, wl_a_y + wl_v);
    float wl_out[4];
#pragma unroll
    for (int wl_c = 0; wl_c < 4; ++wl_c) {
      const int i = static_cast<int>(wl_v + wl_c);
      (void)i;
      {
        float v = (wl_wl_a_x[wl_c] * wl_wl_a_y[wl_c]) + bias;
        wl_out[wl_c] = v > 0.0f ? v : 0.0f;
      }
    }
    wl_vector_store<4>(out + wl_v, wl_out);
  }
  #pragma unroll 8
  for (long long wl_s = wl_vec_end + wl_t; wl_s < wl_n; wl_s += wl_stride) {
    const int i = static_cast<int>(wl_s);
    {
      float v = (wl_a_x[(i)] * wl_a_y[(i)]) + bias;
      out[i] = v > 0.0f ? v : 0.0f;
    }
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
  mul_bias_relu_fused<<<wl_launch::grid(dim3(blocks), dim3(threads), dim3(threads), false, 1, 4, 1, 1, 1, 1, 0), threads>>>(d_x, d_y, d_tmp, n, bias, d_out, n);
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
