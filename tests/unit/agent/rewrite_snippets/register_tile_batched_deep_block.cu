// test: kernel=bmm_deep rewrite=register-tile
// expect: refuses but a launch's block is not constant with z = 1
// The block is two batches deep (threadIdx.z is not read, but blockIdx.z
// then counts pairs of batches): the z grid is not the batch.
__global__ void bmm_deep(const float* A, const float* B, float* C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
      acc += A[((size_t)blockIdx.z * M + row) * K + k] * B[((size_t)blockIdx.z * K + k) * N + col];
    C[((size_t)blockIdx.z * M + row) * N + col] = acc;
  }
}
void run(const float* A, const float* B, float* C, int batch, int M, int N, int K) {
  dim3 block(16, 16, 2);
  dim3 grid((N + 15) / 16, (M + 15) / 16, batch / 2);
  bmm_deep<<<grid, block>>>(A, B, C, M, N, K);
}
