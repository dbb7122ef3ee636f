// test: kernel=max_abs rewrite=reduction-grid-stride vector=4 blocks-per-sm=4
// expect: applies
// expect-output: wl_acc = fmaxf(wl_acc, static_cast<float>((fabsf(wl_e[3]))));
// expect-output: float wl_acc = static_cast<float>(0.0f);
// expect-launch: persistent=4
// A max of absolute values handed to atomicMax as int bits: every value is
// >= +0, so the padding 0 is neutral and the bits order as the floats do.
#include <cuda_runtime.h>
__global__ void max_abs(const float* x, int* result, unsigned int n) {
  __shared__ float sdata[256];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = (i < n) ? fabsf(x[i]) : 0.0f;
  __syncthreads();
  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    if (tid % (2 * s) == 0) sdata[tid] = fmaxf(sdata[tid], sdata[tid + s]);
    __syncthreads();
  }
  if (tid == 0) atomicMax(result, __float_as_int(sdata[0]));
}
void run(const float* x, int* result, unsigned int n) { max_abs<<<(n + 255) / 256, 256>>>(x, result, n); }
