// test: kernel=l2_normalize_rows rewrite=inline-device-call
// expect: applies
// expect-output: // Inlined by warplens (inline-device-call): `row_sum_sq(src, cols)`.
// expect-output: float wl_s = 0.0f;
// expect-output: for (int wl_i = 0; wl_i < cols; wl_i++) wl_s += src[wl_i] * src[wl_i];
// expect-output: const float wl_row_sum_sq = static_cast<float>(wl_s);
// expect-output: float inv = 1.0f / sqrtf(wl_row_sum_sq + eps);
// A thread-per-row L2 norm whose first pass is a helper: inlined, its loop
// is the kernel's (a warp per row then splits it too). The helper never
// changes `row` or `n`, and the caller passes variables of exactly their
// types, so the inlined loop reads `src[...]` up to `cols`: the same array
// and range as the kernel's own loop (the row cache can take both).
#include <cuda_runtime.h>
__device__ float row_sum_sq(const float* row, int n) {
  float s = 0.0f;
  for (int i = 0; i < n; i++) s += row[i] * row[i];
  return s;
}
__global__ void l2_normalize_rows(float* out, const float* in, int rows, int cols, float eps) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    const float* src = in + (size_t)r * cols;
    float* dst = out + (size_t)r * cols;
    float inv = 1.0f / sqrtf(row_sum_sq(src, cols) + eps);
    for (int c = 0; c < cols; c++) dst[c] = src[c] * inv;
  }
}
void run(float* o, const float* i, int rows, int cols) { l2_normalize_rows<<<(rows + 127) / 128, 128>>>(o, i, rows, cols, 1e-12f); }
