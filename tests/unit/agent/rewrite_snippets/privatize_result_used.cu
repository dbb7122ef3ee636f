// test: kernel=claim_slots rewrite=privatize-atomics
// expect: refuses the value atomicAdd returns is used
// The old value is a slot number: the adds cannot be regrouped.
#include <cuda_runtime.h>
__global__ void claim_slots(const int* keys, int* counters, int* slots, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) slots[i] = atomicAdd(&counters[keys[i] & 63], 1);
}
void run(const int* k, int* c, int* s, int n) { claim_slots<<<(n + 255) / 256, 256>>>(k, c, s, n); }
