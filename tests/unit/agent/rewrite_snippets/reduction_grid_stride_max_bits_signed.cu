// test: kernel=max_bits rewrite=reduction-grid-stride
// expect: refuses combined with atomicMax
// -INFINITY is a neutral padding for fmaxf, but negative floats' bits order
// backwards as ints: atomicMax of __float_as_int is not a max of the values.
#include <cuda_runtime.h>
#include <math.h>
__global__ void max_bits(const float* x, int* result, int n) {
  __shared__ float sdata[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[threadIdx.x] = (i < n) ? x[i] : -INFINITY;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) sdata[threadIdx.x] = fmaxf(sdata[threadIdx.x], sdata[threadIdx.x + s]);
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicMax(result, __float_as_int(sdata[0]));
}
void run(const float* x, int* result, int n) { max_bits<<<(n + 255) / 256, 256>>>(x, result, n); }
