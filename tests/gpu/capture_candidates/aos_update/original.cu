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
  update_particles<<<(n + threads - 1) / threads, threads>>>(d_p, n, 0.5f, -0.25f, 1.0f, 0.01f);
  cudaMemcpy(h.data(), d_p, n * sizeof(Particle), cudaMemcpyDeviceToHost);
  double sum = 0;
  for (const Particle& q : h) sum += q.x + q.y + q.z + q.vx + q.vy + q.vz;
  std::printf("particles %d checksum %.6f\n", n, sum);
  cudaFree(d_p);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
