// test: kernel=copy_chunks rewrite=interleave-chunks
// expect: applies
// expect-output: const auto wl_j = k * (chunks) + t;
// expect-output: out[wl_j + (0 * CHUNK + 0)]
#define CHUNK 16
__global__ void copy_chunks(const float* in, float* out, int chunks) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < chunks) {
    for (int k = 0; k < CHUNK; ++k) {
      out[t * CHUNK + k] = in[t * CHUNK + k] * 2.0f;
    }
  }
}
