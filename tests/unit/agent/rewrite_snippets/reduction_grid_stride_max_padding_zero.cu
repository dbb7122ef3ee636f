// test: kernel=max_signed rewrite=reduction-grid-stride
// expect: refuses not neutral for a max
// Signed values padded with 0: a thread's accumulator starting at 0 would
// make the max of all-negative inputs 0 where the original (with no
// out-of-range lane in a block) returns the true maximum.
#include <cuda_runtime.h>
__global__ void max_signed(const float* x, float* result, int n) {
  __shared__ float sdata[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[threadIdx.x] = (i < n) ? x[i] : 0.0f;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) sdata[threadIdx.x] = fmaxf(sdata[threadIdx.x], sdata[threadIdx.x + s]);
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicMax((int*)result, __float_as_int(sdata[0]));
}
void run(const float* x, float* result, int n) { max_signed<<<(n + 255) / 256, 256>>>(x, result, n); }
