// test: kernel=window rewrite=vectorize-loop
// expect: refuses not provably a multiple of
// Chunks start at i + k: consecutive threads overlap, starts are not aligned.
__global__ void window(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 0;
    for (int k = 0; k < 8; ++k) s += in[i + k];
    out[i] = s;
  }
}
