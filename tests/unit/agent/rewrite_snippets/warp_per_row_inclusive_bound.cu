// test: kernel=causal_rows rewrite=warp-per-row lanes=32 cache=0
// expect: applies
// expect-output: for (int j = (0) + wl_lane; j <= i; j += 32) m = fmaxf(m, row[j]);
// expect-output: for (int j = (0) + wl_lane; j <= i; j += 32) s += expf(row[j] - m);
// A causal softmax: row i looks at keys 0..i (`j <= i`), then writes the
// whole row with zeros past the diagonal.
#include <math.h>
__global__ void causal_rows(const float* scores, float* probs, int T) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= T) return;
  const float* row = scores + (size_t)i * T;
  float m = -INFINITY;
  for (int j = 0; j <= i; ++j) m = fmaxf(m, row[j]);
  float s = 0.0f;
  for (int j = 0; j <= i; ++j) s += expf(row[j] - m);
  float* out = probs + (size_t)i * T;
  for (int j = 0; j < T; ++j) out[j] = j <= i ? expf(row[j] - m) / s : 0.0f;
}
void run(const float* scores, float* probs, int T) { causal_rows<<<(T + 127) / 128, 128>>>(scores, probs, T); }
