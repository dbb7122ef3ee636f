// Histogram of ints into 64 bins (`& 63`), early-return guard, the bin computed first.
#include <cuda_runtime.h>
__global__ void bucket_counts(const int* keys, int* counts, int n) {
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= n) return;
  const int bucket = keys[tid] & 63;
  atomicAdd(counts + bucket, 1);
}
void run(const int* k, int* c, int n) { bucket_counts<<<(n + 511) / 512, 512>>>(k, c, n); }
