// test: kernel=nearest rewrite=warp-per-row lanes=256 cache=0
// expect: applies
// expect-output: if (ov < v || (ov == v && oi > i)) {
// expect-output: wl_block_argmin_last(d, k);
// Nearest centroid, the last one on ties (`<=`), with the distance kept as
// `d < e` the other way round; a block per point.
#include <cuda_runtime.h>
#include <cfloat>
__global__ void nearest(const float* dist, int* label, int n, int k_count) {
  int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= n) return;
  float d = FLT_MAX;
  int k = -1;
  for (int c = 0; c < k_count; c++) {
    if (dist[p * k_count + c] <= d) {
      k = c;
      d = dist[p * k_count + c];
    }
  }
  label[p] = k;
}
void run(const float* d, int* l, int n, int k) { nearest<<<(n + 255) / 256, 256>>>(d, l, n, k); }
