// Array of structures vs structure of arrays. The block size comes from the
// command line (default 256), so a static analysis does not know it: these
// are 1-D kernels, whose verdicts do not depend on it.
#include "corpus_common.cuh"

struct Particle {
  float x, y, z;
  float vx, vy, vz;
};  // 24 bytes, 4-byte aligned: every member access is its own 4-byte load

// AoS: the lanes of a warp are 24 bytes apart, so each member load or
// store touches 24 sectors (25 when the warp's run is misaligned) for 4.
__global__ void advance_aos(Particle* p, int n, float dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    p[i].x += p[i].vx * dt;  // expect: uncoalesced-global(load) uncoalesced-global(store)
    p[i].y += p[i].vy * dt;  // expect: uncoalesced-global(load) uncoalesced-global(store)
    p[i].z += p[i].vz * dt;  // expect: uncoalesced-global(load) uncoalesced-global(store)
  }
}

struct Particles {
  float* x;
  float* y;
  float* z;
  float* vx;
  float* vy;
  float* vz;
};

__global__ void advance_soa(float* x, float* y, float* z, const float* vx, const float* vy, const float* vz,
                            int n, float dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    x[i] += vx[i] * dt;
    y[i] += vy[i] * dt;
    z[i] += vz[i] * dt;
  }
}

// float4 positions read whole: 16-byte loads, 16 sectors for 16.
__global__ void centroid_float4(const float4* pos, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float4 p = pos[i];
    out[i] = (p.x + p.y + p.z) * p.w;
  }
}

// Only the .w member of a float4 array: 4-byte loads 16 bytes apart.
__global__ void weights_of_float4(const float4* pos, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = pos[i].w;  // expect: uncoalesced-global(load, 4x)
}

// The real part of complex doubles: 8-byte accesses 16 bytes apart.
__global__ void scale_real_part(const double2* in, double2* out, int n, double a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i].x = a * in[i].x;  // expect: uncoalesced-global(load, 2x) uncoalesced-global(store, 2x)
}

// Whole complex doubles: 16-byte loads and stores, coalesced.
__global__ void scale_complex(const double2* in, double2* out, int n, double a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    double2 v = in[i];
    out[i] = make_double2(a * v.x, a * v.y);
  }
}

int main(int argc, char** argv) {
  const int n = 1 << 21;
  const int threads = int_arg(argc, argv, 1, 256);
  const int blocks = (n + threads - 1) / threads;
  const float dt = 0.01f;

  Particle* aos = nullptr;
  CUDA_CHECK(cudaMalloc(&aos, n * sizeof(Particle)));
  CUDA_CHECK(cudaMemset(aos, 0, n * sizeof(Particle)));
  advance_aos<<<blocks, threads>>>(aos, n, dt);

  Particles soa;
  soa.x = device_buffer<float>(n, 1);
  soa.y = device_buffer<float>(n, 2);
  soa.z = device_buffer<float>(n, 3);
  soa.vx = device_buffer<float>(n, 4);
  soa.vy = device_buffer<float>(n, 5);
  soa.vz = device_buffer<float>(n, 6);
  advance_soa<<<blocks, threads>>>(soa.x, soa.y, soa.z, soa.vx, soa.vy, soa.vz, n, dt);

  float4* pos = nullptr;
  CUDA_CHECK(cudaMalloc(&pos, n * sizeof(float4)));
  CUDA_CHECK(cudaMemset(pos, 0, n * sizeof(float4)));
  float* out = device_zeros<float>(n);
  centroid_float4<<<blocks, threads>>>(pos, out, n);
  weights_of_float4<<<blocks, threads>>>(pos, out, n);

  double2* cin = device_zeros<double2>(n);
  double2* cout = device_zeros<double2>(n);
  scale_real_part<<<blocks, threads>>>(cin, cout, n, 2.0);
  scale_complex<<<blocks, threads>>>(cin, cout, n, 2.0);
  finish("aos_soa");

  cudaFree(aos);
  cudaFree(soa.x);
  cudaFree(soa.y);
  cudaFree(soa.z);
  cudaFree(soa.vx);
  cudaFree(soa.vy);
  cudaFree(soa.vz);
  cudaFree(pos);
  cudaFree(out);
  cudaFree(cin);
  cudaFree(cout);
  return 0;
}
