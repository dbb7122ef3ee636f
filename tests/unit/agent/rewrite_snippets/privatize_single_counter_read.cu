// test: kernel=count_above rewrite=privatize-atomics bins=1 blocks-per-sm=8
// expect: refuses is used other than by atomicAdd
// The counter is also read by the kernel: adding it up at the end would
// change what that read sees.
#include <cuda_runtime.h>
__global__ void count_above(const float* x, unsigned* count, float* seen, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (x[i] > 0.5f) atomicAdd(count, 1u);
  seen[i] = static_cast<float>(*count);
}
void run(const float* x, unsigned* c, float* s, int n) { count_above<<<(n + 127) / 128, 128>>>(x, c, s, n); }
