// HONEST (must pass): warp shuffles instead of a shared-memory tree (a
// different summation order, within the fp32 tolerance).
__global__ void row_sum(const float* in, float* out, int cols) {
  __shared__ float warp_sums[32];
  const int row = blockIdx.x, lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  float acc = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) acc += in[row * cols + c];
  for (int offset = 16; offset > 0; offset >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, offset);
  if (lane == 0) warp_sums[warp] = acc;
  __syncthreads();
  if (warp == 0) {
    acc = lane < (blockDim.x + 31) / 32 ? warp_sums[lane] : 0.0f;
    for (int offset = 16; offset > 0; offset >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, offset);
    if (lane == 0) out[row] = acc;
  }
}
