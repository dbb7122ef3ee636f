// HONEST (must pass): the same transpose with the shared tile padded to 33
// columns, so the column reads hit 32 different banks.
#define TILE 32
__global__ void transpose_naive(const float* in, float* out, int rows, int cols) {
  __shared__ float tile[TILE][TILE + 1];
  int c = blockIdx.x * TILE + threadIdx.x;
  int r = blockIdx.y * TILE + threadIdx.y;
  if (r < rows && c < cols) tile[threadIdx.y][threadIdx.x] = in[r * cols + c];
  __syncthreads();
  int out_row = blockIdx.x * TILE + threadIdx.y;
  int out_col = blockIdx.y * TILE + threadIdx.x;
  if (out_row < cols && out_col < rows) out[out_row * rows + out_col] = tile[threadIdx.x][threadIdx.y];
}
