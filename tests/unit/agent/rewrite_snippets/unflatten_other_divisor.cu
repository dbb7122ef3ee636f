// test: kernel=gather rewrite=unflatten-index
// expect: refuses does not divide by a factor of the bound
// The index is divided by something other than a factor of the bound: its
// quotient is not a row of an M x N grid.
#include <cuda_runtime.h>
__global__ void gather(const float* in, float* out, int M, int N, int W) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < M * N) out[i] = in[(i / W) * N + i % N];
}
void run(const float* in, float* out, int M, int N, int W) { gather<<<(M * N + 127) / 128, 128>>>(in, out, M, N, W); }
