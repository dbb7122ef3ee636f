// test: kernel=prefix_chunks rewrite=interleave-chunks
// expect: refuses carries state
// A running sum inside the chunk: element order matters, so no interleaving.
__global__ void prefix_chunks(const float* in, float* out, int chunks) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < chunks) {
    float s = 0;
    for (int k = 0; k < 16; ++k) {
      s += in[t * 16 + k];
      out[t * 16 + k] = s;
    }
  }
}
