// HONEST (must pass): a shared-memory transpose (32 x 32 tile, no padding:
// coalesced global accesses, bank-conflicted shared reads).
#define TILE 32
__global__ void transpose_naive(const float* in, float* out, int rows, int cols) {
  __shared__ float tile[TILE][TILE];
  int c = blockIdx.x * TILE + threadIdx.x;
  int r = blockIdx.y * TILE + threadIdx.y;
  if (r < rows && c < cols) tile[threadIdx.y][threadIdx.x] = in[r * cols + c];
  __syncthreads();
  int out_row = blockIdx.x * TILE + threadIdx.y;  // = input column
  int out_col = blockIdx.y * TILE + threadIdx.x;  // = input row
  if (out_row < cols && out_col < rows) out[out_row * rows + out_col] = tile[threadIdx.x][threadIdx.y];
}
