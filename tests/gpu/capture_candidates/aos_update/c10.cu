// warplens candidate c10 for kernel `update_particles` (policy builtin)
// plan: block-size(x=1024, y=1)
// block-size: block 256x1 -> 1024x1 (the kernel is block-size agnostic)
// note: block-size: block-size agnostic: thread identity only through global indices, bounds-checked, launch grids cover the bound
// warplens-launch: kernel=update_particles block=1024,1,1 swap-xy=0 scale=1/1,1/1,1/1 persistent=0
// Particle update on an array of structures: each field access of a warp
// spans 32 particles.
// usage: aos_update [n]
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

struct Particle {
  float x, y, z;
  float vx, vy, vz;
  float mass, charge;
};

__global__ void update_particles(Particle* p, int n, float ex, float ey, float ez, float dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float a = p[i].charge / p[i].mass;
    p[i].vx += a * ex * dt;
    p[i].vy += a * ey * dt;
    p[i].vz += a * ez * dt;
    p[i].x += p[i].vx * dt;
    p[i].y += p[i].vy * dt;
    p[i].z += p[i].vz * dt;
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
  update_particles<<<wl_launch::grid(dim3((n + threads - 1) / threads), dim3(threads), dim3(1024, 1, 1), false, 1, 1, 1, 1, 1, 1, 0), dim3(1024, 1, 1)>>>(d_p, n, 0.5f, -0.25f, 1.0f, 0.01f);
  cudaMemcpy(h.data(), d_p, n * sizeof(Particle), cudaMemcpyDeviceToHost);
  double sum = 0;
  for (const Particle& q : h) sum += q.x + q.y + q.z + q.vx + q.vy + q.vz;
  std::printf("particles %d checksum %.6f\n", n, sum);
  cudaFree(d_p);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
