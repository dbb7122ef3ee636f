// test: kernel=permute_cba rewrite=permute-tile rows=8
// expect: applies
// expect-output: wl_tile[wl_r][threadIdx.x] = in[(a * DIM_B + b) * DIM_C + c];
// expect-output: out[idx] = wl_tile[threadIdx.x][wl_r];
// expect-launch: block=32,8,1
// expect-motivation: `idx / 65536`
// A 3-D permutation [A][B][C] -> [C][B][A] written as one thread per output
// element: dimensions as macros, unsigned div/mod decode inside the guard,
// the top digit `idx / (DIM_A * DIM_B)` steps the load by one element.
#include <cuda_runtime.h>
#define DIM_A 256
#define DIM_B 256
#define DIM_C 512
__global__ void permute_cba(const float* in, float* out) {
  unsigned int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < DIM_A * DIM_B * DIM_C) {
    unsigned int a = idx % DIM_A;
    unsigned int b = (idx / DIM_A) % DIM_B;
    unsigned int c = idx / (DIM_A * DIM_B);
    out[idx] = in[(a * DIM_B + b) * DIM_C + c];
  }
}
void run(const float* in, float* out) {
  const unsigned int total = DIM_A * DIM_B * DIM_C;
  permute_cba<<<(total + 511) / 512, 512>>>(in, out);
}
