// C = A + B^T with row and column names: B is read across the store.
__global__ void add_transpose(const float* A, const float* B, float* C, int rows, int cols) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < rows && j < cols) C[i * cols + j] = A[i * cols + j] + B[j * rows + i];
}
void run(const float* A, const float* B, float* C, int rows, int cols) {
  dim3 b(32, 8), g((cols + 31) / 32, (rows + 7) / 8);
  add_transpose<<<g, b>>>(A, B, C, rows, cols);
}
