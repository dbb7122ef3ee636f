// test: kernel=small_matvec rewrite=warp-per-row lanes=16 cache=0 contiguous=1
// expect: applies
// expect-output: const unsigned wl_row_mask = 0x0000ffffu << (threadIdx.x % 32 / 16 * 16);
// expect-output: for (int offset = 8; offset >= 1; offset >>= 1) v += __shfl_xor_sync(mask, v, offset);
// expect-launch: scale=16/1,1/1,1/1
// expect-motivation: rows of 32 elements: 16 neighbouring lanes per row
// The row length is a template parameter: the instantiation the program
// launches (<32>) fixes it, so short-row groups are proposed.
#include <cuda_runtime.h>
template <int N>
__global__ void small_matvec(const float* a, const float* v, float* out, int count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  float acc = 0.0f;
  for (int k = 0; k < N; ++k) acc += a[(size_t)i * N + k] * v[k];
  out[i] = acc;
}
void run(const float* a, const float* v, float* o, int count) {
  small_matvec<32><<<(count + 127) / 128, 128>>>(a, v, o, count);
}
