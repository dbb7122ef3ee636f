// Nearest codebook entry per vector (vector quantisation), distances
// precomputed row-major: the smallest distance, the last one on ties,
// spelled with flat index math and a sentinel start.
#include <cuda_runtime.h>
#include <cfloat>

#define K_ENTRIES 1024

__global__ void nearest_code(const float* dist, int* code, int n) {
  const int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i < n) {
    float d = FLT_MAX;
    int k = -1;
    for (int e = 0; e < K_ENTRIES; e++) {
      if (dist[i * K_ENTRIES + e] <= d) {
        d = dist[i * K_ENTRIES + e];
        k = e;
      }
    }
    code[i] = k;
  }
}

void run(const float* dist, int* code, int n) { nearest_code<<<(n + 255) / 256, 256>>>(dist, code, n); }
