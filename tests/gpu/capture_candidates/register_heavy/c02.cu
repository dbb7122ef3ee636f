// warplens candidate c02 for kernel `invert4x4` (policy builtin)
// plan: vectorize-loop() + block-size(x=128, y=1)
// vectorize-loop: 2 per-thread loop(s) over a contiguous chunk (16 elements): 4-wide accesses; block-size: block 512x1 -> 128x1 (the kernel is block-size agnostic)
// note: vectorize-loop: every chunk start is a multiple of the vector width and the pointers are checked for alignment at run time (else the original loop runs)
// note: vectorize-loop: arrays are only read or only written in the loop: grouping the element accesses changes no value
// note: block-size: block-size agnostic: thread identity only through global indices, bounds-checked, launch grids cover the bound
// warplens-launch: kernel=invert4x4 block=128,1,1 swap-xy=0 scale=1/1,1/1,1/1 persistent=0
// Batched 4x4 matrix inverse with double-precision intermediates: about 100
// registers a thread, so 512-thread blocks leave the GPU at low occupancy.
// usage: register_heavy [n]
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
__global__ void invert4x4(const float* A, float* Ainv, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    double m[16];
    if (true && reinterpret_cast<unsigned long long>(A) % 16 == 0) {
      // Rewritten by warplens (vectorize-loop): 4 elements per access.
#pragma unroll
      for (int wl_k = 0; wl_k < 16; wl_k += 4) {
        float wl_A_v[4];
        wl_vector_load<4>(wl_A_v, A + (i * 16 + 0) + wl_k);
#pragma unroll
        for (int wl_c = 0; wl_c < 4; ++wl_c) {
          const int k = wl_k + wl_c;
          m[k] = wl_A_v[wl_c];
        }
      }
    } else {
      for (int k = 0; k < 16; ++k) m[k] = A[i * 16 + k];
    }
    double inv[16];
    inv[0] = m[5] * m[10] * m[15] - m[5] * m[11] * m[14] - m[9] * m[6] * m[15] + m[9] * m[7] * m[14] + m[13] * m[6] * m[11] - m[13] * m[7] * m[10];
    inv[4] = -m[4] * m[10] * m[15] + m[4] * m[11] * m[14] + m[8] * m[6] * m[15] - m[8] * m[7] * m[14] - m[12] * m[6] * m[11] + m[12] * m[7] * m[10];
    inv[8] = m[4] * m[9] * m[15] - m[4] * m[11] * m[13] - m[8] * m[5] * m[15] + m[8] * m[7] * m[13] + m[12] * m[5] * m[11] - m[12] * m[7] * m[9];
    inv[12] = -m[4] * m[9] * m[14] + m[4] * m[10] * m[13] + m[8] * m[5] * m[14] - m[8] * m[6] * m[13] - m[12] * m[5] * m[10] + m[12] * m[6] * m[9];
    inv[1] = -m[1] * m[10] * m[15] + m[1] * m[11] * m[14] + m[9] * m[2] * m[15] - m[9] * m[3] * m[14] - m[13] * m[2] * m[11] + m[13] * m[3] * m[10];
    inv[5] = m[0] * m[10] * m[15] - m[0] * m[11] * m[14] - m[8] * m[2] * m[15] + m[8] * m[3] * m[14] + m[12] * m[2] * m[11] - m[12] * m[3] * m[10];
    inv[9] = -m[0] * m[9] * m[15] + m[0] * m[11] * m[13] + m[8] * m[1] * m[15] - m[8] * m[3] * m[13] - m[12] * m[1] * m[11] + m[12] * m[3] * m[9];
    inv[13] = m[0] * m[9] * m[14] - m[0] * m[10] * m[13] - m[8] * m[1] * m[14] + m[8] * m[2] * m[13] + m[12] * m[1] * m[10] - m[12] * m[2] * m[9];
    inv[2] = m[1] * m[6] * m[15] - m[1] * m[7] * m[14] - m[5] * m[2] * m[15] + m[5] * m[3] * m[14] + m[13] * m[2] * m[7] - m[13] * m[3] * m[6];
    inv[6] = -m[0] * m[6] * m[15] + m[0] * m[7] * m[14] + m[4] * m[2] * m[15] - m[4] * m[3] * m[14] - m[12] * m[2] * m[7] + m[12] * m[3] * m[6];
    inv[10] = m[0] * m[5] * m[15] - m[0] * m[7] * m[13] - m[4] * m[1] * m[15] + m[4] * m[3] * m[13] + m[12] * m[1] * m[7] - m[12] * m[3] * m[5];
    inv[14] = -m[0] * m[5] * m[14] + m[0] * m[6] * m[13] + m[4] * m[1] * m[14] - m[4] * m[2] * m[13] - m[12] * m[1] * m[6] + m[12] * m[2] * m[5];
    inv[3] = -m[1] * m[6] * m[11] + m[1] * m[7] * m[10] + m[5] * m[2] * m[11] - m[5] * m[3] * m[10] - m[9] * m[2] * m[7] + m[9] * m[3] * m[6];
    inv[7] = m[0] * m[6] * m[11] - m[0] * m[7] * m[10] - m[4] * m[2] * m[11] + m[4] * m[3] * m[10] + m[8] * m[2] * m[7] - m[8] * m[3] * m[6];
    inv[11] = -m[0] * m[5] * m[11] + m[0] * m[7] * m[9] + m[4] * m[1] * m[11] - m[4] * m[3] * m[9] - m[8] * m[1] * m[7] + m[8] * m[3] * m[5];
    inv[15] = m[0] * m[5] * m[10] - m[0] * m[6] * m[9] - m[4] * m[1] * m[10] + m[4] * m[2] * m[9] + m[8] * m[1] * m[6] - m[8] * m[2] * m[5];
    double det = m[0] * inv[0] + m[1] * inv[4] + m[2] * inv[8] + m[3] * inv[12];
    double r = 1.0 / det;
    if (true && reinterpret_cast<unsigned long long>(Ainv) % 16 == 0) {
      // Rewritten by warplens (vectorize-loop): 4 elements per access.
#pragma unroll
      for (int wl_k2 = 0; wl_k2 < 16; wl_k2 += 4) {
        float wl_Ainv_v[4];
#pragma unroll
        for (int wl_c2 = 0; wl_c2 < 4; ++wl_c2) {
          const int k = wl_k2 + wl_c2;
          wl_Ainv_v[wl_c2] = static_cast<float>(inv[k] * r);
        }
        wl_vector_store<4>(Ainv + (i * 16 + 0) + wl_k2, wl_Ainv_v);
      }
    } else {
      for (int k = 0; k < 16; ++k) Ainv[i * 16 + k] = static_cast<float>(inv[k] * r);
    }
  }
}

void invert(const float* A, float* Ainv, int n) {
  const int threads = 512;
  invert4x4<<<wl_launch::grid(dim3((n + threads - 1) / threads), dim3(threads), dim3(128, 1, 1), false, 1, 1, 1, 1, 1, 1, 0), dim3(128, 1, 1)>>>(A, Ainv, n);
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 8 << 20;
  // Pseudo-random matrices plus 4 I: well conditioned.
  std::vector<float> h(16u * n);
  for (size_t i = 0; i < h.size(); ++i) h[i] = static_cast<float>((i * 2654435761u) % 2001) * 0.001f - 1.0f;
  for (int i = 0; i < n; ++i)
    for (int d = 0; d < 4; ++d) h[16u * i + 5 * d] += 4.0f;
  float *A, *Ainv;
  cudaMalloc(&A, h.size() * sizeof(float));
  cudaMalloc(&Ainv, h.size() * sizeof(float));
  cudaMemcpy(A, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice);
  invert(A, Ainv, n);
  cudaMemcpy(h.data(), Ainv, h.size() * sizeof(float), cudaMemcpyDeviceToHost);
  double sum = 0;
  for (float v : h) sum += v;
  std::printf("inverted %d matrices, checksum %.6f\n", n, sum);
  cudaFree(A);
  cudaFree(Ainv);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
