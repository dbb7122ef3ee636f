// test: kernel=symmetrize rewrite=stage-shared-tile rows=8
// expect: applies
// expect-output: if (col < n && row < n) wl_tile[threadIdx.x][threadIdx.y + wl_r] = A[(size_t)col * n + row];
// expect-output: S[(size_t)row * n + col] = 0.5f * (A[(size_t)row * n + col] + wl_tile[threadIdx.y + wl_r][threadIdx.x]);
// (A + A^T) / 2: A[row][col] is read along the store, A[col][row] across
// it; only the transposed read goes through the tile.
__global__ void symmetrize(const float* A, float* S, int n) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (col < n && row < n) S[(size_t)row * n + col] = 0.5f * (A[(size_t)row * n + col] + A[(size_t)col * n + row]);
}
void run(const float* A, float* S, int n) {
  dim3 block(16, 16);
  dim3 grid((n + 15) / 16, (n + 15) / 16);
  symmetrize<<<grid, block>>>(A, S, n);
}
