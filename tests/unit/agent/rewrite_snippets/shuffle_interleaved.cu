// test: kernel=reduce0 rewrite=warp-shuffle-reduction
// expect: applies
// expect-output: __shfl_down_sync(0xffffffffu, wl_v, wl_offset)
// expect-output: if (threadIdx.x == 0) sdata[0] = wl_v;
// expect-motivation: 8 barrier-separated steps
#include <cuda_runtime.h>
__global__ void reduce0(const float* in, float* sum, int n) {
  extern __shared__ float sdata[];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = (i < n) ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    if (tid % (2 * s) == 0) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) atomicAdd(sum, sdata[0]);
}
void run(const float* in, float* sum, int n) { reduce0<<<(n + 255) / 256, 256, 256 * sizeof(float)>>>(in, sum, n); }
