// test: kernel=permute rewrite=permute-tile
// expect: refuses cannot prove that a launch's grid covers the bound
// The launch starts a fixed 1024 blocks whatever n is: the original handles
// only the first 256K indices, a tiled kernel would handle them all.
#include <cuda_runtime.h>
__global__ void permute(const float* in, float* out, int A, int B, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int a = i % A;
    int b = i / A;
    out[i] = in[a * B + b];
  }
}
void run(const float* in, float* out, int A, int B) { permute<<<1024, 256>>>(in, out, A, B, A * B); }
