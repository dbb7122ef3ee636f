// test: kernel=linear rewrite=tile-k-loop tile=16
// expect: refuses cannot prove that a launch's grid covers the bound
// The same launch, but `T` changes between the grid and the launch: the
// grid covers the old product, not the argument.
#include <cuda_runtime.h>
__host__ __device__ inline int ceil_div(int a, int b) { return (a + b - 1) / b; }
__global__ void linear(float* out, const float* inp, const float* weight, int BT, int C, int OC) {
  int bt = blockIdx.x * blockDim.x + threadIdx.x;
  int oc = blockIdx.y * blockDim.y + threadIdx.y;
  if (bt < BT && oc < OC) {
    float val = 0.0f;
    for (int i = 0; i < C; i++) val += inp[bt * C + i] * weight[oc * C + i];
    out[bt * OC + oc] = val;
  }
}
void run(float* out, const float* inp, const float* w, int B, int T, int C, int OC, const int bs) {
  dim3 grid(ceil_div(B * T, bs), ceil_div(OC, bs));
  dim3 block(bs, bs);
  T += 1;
  linear<<<grid, block>>>(out, inp, w, B * T, C, OC);
}
