// test: kernel=reduce0 rewrite=reduction-grid-stride vector=4 blocks-per-sm=8
// expect: applies
// expect-output: wl_vector_load<4>(wl_e, in + wl_q * 4);
// expect-output: sdata[tid] = wl_acc;
// expect-launch: persistent=8
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
