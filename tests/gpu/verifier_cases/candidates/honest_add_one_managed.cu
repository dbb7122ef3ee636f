// HONEST (must pass): add_one captured on managed memory, replayed on
// device memory; an in-place update (read and written).
__global__ void add_one(float* a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) a[i] = a[i] + 1.0f;
}
