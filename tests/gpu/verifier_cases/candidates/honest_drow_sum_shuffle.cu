// HONEST (must pass): the fp64 row sum with warp shuffles (another summation
// order: relative differences near 1e-16, well within fp64's 1e-10).
__global__ void drow_sum(const double* in, double* out, int cols) {
  __shared__ double warp_sums[32];
  const int row = blockIdx.x, lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  double acc = 0.0;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) acc += in[row * cols + c];
  for (int offset = 16; offset > 0; offset >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, offset);
  if (lane == 0) warp_sums[warp] = acc;
  __syncthreads();
  if (warp == 0) {
    acc = lane < (blockDim.x + 31) / 32 ? warp_sums[lane] : 0.0;
    for (int offset = 16; offset > 0; offset >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, offset);
    if (lane == 0) out[row] = acc;
  }
}
