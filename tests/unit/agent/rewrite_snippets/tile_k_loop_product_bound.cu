// test: kernel=linear rewrite=tile-k-loop tile=16
// expect: applies
// expect-launch: block=16,16,1
// A linear layer launched the way a library launches it: the grid and block
// are dim3 variables built from a run-time block size, and the bound is a
// product (`B * T`) written again at the launch.
#include <cuda_runtime.h>
__host__ __device__ inline int ceil_div(int a, int b) { return (a + b - 1) / b; }
__global__ void linear(float* out, const float* inp, const float* weight, int BT, int C, int OC) {
  int bt = blockIdx.x * blockDim.x + threadIdx.x;
  int oc = blockIdx.y * blockDim.y + threadIdx.y;
  if (bt < BT && oc < OC) {
    float val = 0.0f;
    const float* wrow = weight + oc * C;
    const float* inp_bt = inp + bt * C;
    for (int i = 0; i < C; i++) val += inp_bt[i] * wrow[i];
    out[bt * OC + oc] = val;
  }
}
void run(float* out, const float* inp, const float* w, int B, int T, int C, int OC, const int sqrt_block_size) {
  dim3 grid(ceil_div(B * T, sqrt_block_size), ceil_div(OC, sqrt_block_size));
  dim3 block(sqrt_block_size, sqrt_block_size);
  linear<<<grid, block>>>(out, inp, w, B * T, C, OC);
}
