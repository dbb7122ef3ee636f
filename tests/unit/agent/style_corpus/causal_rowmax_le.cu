// Causal row statistics: row i looks at columns 0..i only (`j <= i`).
__global__ void causal_logsumexp(const float* s, float* lse, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float m = -1e30f;
  for (int j = 0; j <= i; ++j) m = fmaxf(m, s[(size_t)i * n + j]);
  float acc = 0.0f;
  for (int j = 0; j <= i; ++j) acc += __expf(s[(size_t)i * n + j] - m);
  lse[i] = m + logf(acc);
}
void run(const float* s, float* lse, int n) { causal_logsumexp<<<(n + 255) / 256, 256>>>(s, lse, n); }
