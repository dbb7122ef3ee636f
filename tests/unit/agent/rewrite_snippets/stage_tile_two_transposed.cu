// test: kernel=add_transposes rewrite=stage-shared-tile
// expect: refuses more than one load transposed against the store
// Two reads across the store: one tile cannot stage both.
__global__ void add_transposes(const float* A, const float* B, float* C, int n) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < n && y < n) C[y * n + x] = A[x * n + y] + B[x * n + y];
}
void run(const float* A, const float* B, float* C, int n) {
  dim3 block(32, 8);
  dim3 grid((n + 31) / 32, (n + 7) / 8);
  add_transposes<<<grid, block>>>(A, B, C, n);
}
