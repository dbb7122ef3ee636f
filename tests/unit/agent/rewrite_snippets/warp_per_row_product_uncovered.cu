// test: kernel=batched_rows rewrite=warp-per-row lanes=32 cache=0
// expect: refuses cannot prove that a launch's grid covers the bound
// The same rows, but the grid covers only `batch` threads, not
// `batch * DIM`: the rows a launch covers are not known, so no warp per row.
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
  batched_rows<64><<<(batch + 127) / 128, 128>>>(m, v, out, batch);
}
