// warplens candidate c01 for kernel `invert4x4` (policy builtin)
// plan: vectorize-loop()
// vectorize-loop: 2 per-thread loop(s) over a contiguous chunk (16 elements): 4-wide accesses
// note: vectorize-loop: every chunk start is a multiple of the vector width and the pointers are checked for alignment at run time (else the original loop runs)
// note: vectorize-loop: arrays are only read or only written in the loop: grouping the element accesses changes no value
// Batched 4x4 matrix inverse with double-precision intermediates: about 100
// registers a thread, so 512-thread blocks leave the GPU at low occupancy.
// usage: register_heavy [n]
#include <cstdio>
#include <cstdlib>
#include <vector>

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
  invert4x4<<<(n + threads - 1) / threads, threads>>>(A, Ainv, n);
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
