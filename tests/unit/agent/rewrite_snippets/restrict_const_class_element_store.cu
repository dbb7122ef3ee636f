// test: kernel=scale rewrite=restrict-const
// expect: applies
// expect-output: bf16* __restrict__ out
// expect-no-output: const bf16* __restrict__ out
// A store through an element type with its own operator= (bf16 and half
// wrappers, llm.c's floatX) is a call, not a built-in assignment: it still
// writes `out`, which must not become const.
#include <cuda_runtime.h>
struct bf16 {
  unsigned short bits;
  __device__ bf16& operator=(float f) {
    bits = static_cast<unsigned short>(__float_as_uint(f) >> 16);
    return *this;
  }
  __device__ operator float() const { return __uint_as_float(static_cast<unsigned>(bits) << 16); }
};
__global__ void scale(bf16* out, bf16* in, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a * static_cast<float>(in[i]);
}
void run(bf16* out, bf16* in, float a, int n) { scale<<<(n + 255) / 256, 256>>>(out, in, a, n); }
