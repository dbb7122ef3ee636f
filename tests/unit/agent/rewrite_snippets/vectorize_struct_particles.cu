// test: kernel=drift rewrite=vectorize-struct
// expect: applies
// expect-output: Particle wl_elem = wl_struct_load(p + i);
// expect-output: wl_elem.x += wl_elem.vx * dt;
// expect-output: wl_struct_store(p + i, wl_elem);
#include <cuda_runtime.h>
struct Particle {
  float x, y, z, vx, vy, vz, mass, charge;
};
__global__ void drift(Particle* p, int n, float dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    p[i].x += p[i].vx * dt;
    p[i].y += p[i].vy * dt;
    p[i].z += p[i].vz * dt;
  }
}
void run(Particle* p, int n) { drift<<<(n + 255) / 256, 256>>>(p, n, 0.01f); }
