// test: kernel=batched_rows rewrite=warp-per-row lanes=32 cache=0
// expect: applies
// expect-output: if (wl_lane != 0) acc = 0;
// expect-output: for (int k = (0) + wl_lane; k < DIM; k += 32)
// A batch of small matrices times vectors, a thread per (matrix, row): the
// rows are bounded by a product of a parameter and a template constant
// (`batch * DIM`), and the grid is sized from the same product.
#include <cuda_runtime.h>
template <int DIM>
__global__ void batched_rows(const float* __restrict__ m, const float* __restrict__ v, float* __restrict__ out,
                             int batch) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= batch * DIM) return;
  const float* row = m + (size_t)tid * DIM;
  const float* vec = v + (size_t)(tid / DIM) * DIM;
  float acc = 0.0f;
  for (int k = 0; k < DIM; ++k) acc += row[k] * vec[k];
  out[tid] = acc;
}
void run(const float* m, const float* v, float* out, int batch) {
  const int threads = 128;
  int blocks = (batch * 64 + threads - 1) / threads;
  batched_rows<64><<<blocks, threads>>>(m, v, out, batch);
}
