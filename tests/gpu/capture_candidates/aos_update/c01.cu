// warplens candidate c01 for kernel `update_particles` (policy builtin)
// plan: vectorize-struct()
// vectorize-struct: 11 field access(es) to `p` (32-byte elements): one wide copy in and out instead
// note: vectorize-struct: the launches pass distinct pointers: nothing else reaches the element during the copy
// note: vectorize-struct: fields the code does not change are stored back with their own bits
// Particle update on an array of structures: each field access of a warp
// spans 32 particles.
// usage: aos_update [n]
#include <cstdio>
#include <cstdlib>
#include <vector>

struct Particle {
  float x, y, z;
  float vx, vy, vz;
  float mass, charge;
};

// Added by warplens (vectorize-struct): whole-element copies with 16/8-byte accesses.
template <typename T>
__device__ __forceinline__ T wl_struct_load(const T* p) {
  static_assert(sizeof(T) % 8 == 0, "element size must be a multiple of 8 bytes");
  union {
    T value;
    uint4 q[sizeof(T) % 16 == 0 ? sizeof(T) / 16 : 1];
    uint2 d[sizeof(T) / 8];
  } u;
  if constexpr (sizeof(T) % 16 == 0) {
#pragma unroll
    for (int k = 0; k < static_cast<int>(sizeof(T) / 16); ++k) u.q[k] = reinterpret_cast<const uint4*>(p)[k];
  } else {
#pragma unroll
    for (int k = 0; k < static_cast<int>(sizeof(T) / 8); ++k) u.d[k] = reinterpret_cast<const uint2*>(p)[k];
  }
  return u.value;
}
template <typename T>
__device__ __forceinline__ void wl_struct_store(T* p, const T& v) {
  union {
    T value;
    uint4 q[sizeof(T) % 16 == 0 ? sizeof(T) / 16 : 1];
    uint2 d[sizeof(T) / 8];
  } u;
  u.value = v;
  if constexpr (sizeof(T) % 16 == 0) {
#pragma unroll
    for (int k = 0; k < static_cast<int>(sizeof(T) / 16); ++k) reinterpret_cast<uint4*>(p)[k] = u.q[k];
  } else {
#pragma unroll
    for (int k = 0; k < static_cast<int>(sizeof(T) / 8); ++k) reinterpret_cast<uint2*>(p)[k] = u.d[k];
  }
}
__global__ void update_particles(Particle* p, int n, float ex, float ey, float ez, float dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    // Rewritten by warplens (vectorize-struct): the element is copied in and out with 16-byte accesses.
    if (reinterpret_cast<unsigned long long>(p) % 16 == 0) {
      Particle wl_elem = wl_struct_load(p + i);
      float a = wl_elem.charge / wl_elem.mass;
      wl_elem.vx += a * ex * dt;
      wl_elem.vy += a * ey * dt;
      wl_elem.vz += a * ez * dt;
      wl_elem.x += wl_elem.vx * dt;
      wl_elem.y += wl_elem.vy * dt;
      wl_elem.z += wl_elem.vz * dt;
      wl_struct_store(p + i, wl_elem);
    } else {
      float a = p[i].charge / p[i].mass;
      p[i].vx += a * ex * dt;
      p[i].vy += a * ey * dt;
      p[i].vz += a * ez * dt;
      p[i].x += p[i].vx * dt;
      p[i].y += p[i].vy * dt;
      p[i].z += p[i].vz * dt;
    }
  }
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 16 << 20;
  const int threads = 256;
  std::vector<Particle> h(n);
  for (int i = 0; i < n; ++i) {
    const float f = static_cast<float>(i % 1000) * 0.001f;
    h[i] = {f, 1.0f - f, 0.5f * f, 0.1f, -0.2f, 0.3f * f, 1.0f + f, f - 0.5f};
  }
  Particle* d_p;
  cudaMalloc(&d_p, n * sizeof(Particle));
  cudaMemcpy(d_p, h.data(), n * sizeof(Particle), cudaMemcpyHostToDevice);
  update_particles<<<(n + threads - 1) / threads, threads>>>(d_p, n, 0.5f, -0.25f, 1.0f, 0.01f);
  cudaMemcpy(h.data(), d_p, n * sizeof(Particle), cudaMemcpyDeviceToHost);
  double sum = 0;
  for (const Particle& q : h) sum += q.x + q.y + q.z + q.vx + q.vy + q.vz;
  std::printf("particles %d checksum %.6f\n", n, sum);
  cudaFree(d_p);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
