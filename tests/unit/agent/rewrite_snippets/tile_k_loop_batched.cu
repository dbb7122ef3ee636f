// test: kernel=bmm_bias rewrite=tile-k-loop tile=16
// expect: applies
// expect-output: blockIdx.z
// A batched product with a per-column bias: the batch is blockIdx.z,
// spelled straight into the subscripts.
__global__ void bmm_bias(const float* A, const float* B, const float* bias, float* C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = bias[col];
    for (int k = 0; k < K; ++k)
      acc += A[((size_t)blockIdx.z * M + row) * K + k] * B[((size_t)blockIdx.z * K + k) * N + col];
    C[((size_t)blockIdx.z * M + row) * N + col] = acc;
  }
}
void run(const float* A, const float* B, const float* bias, float* C, int batch, int M, int N, int K) {
  dim3 block(16, 16);
  dim3 grid((N + 15) / 16, (M + 15) / 16, batch);
  bmm_bias<<<grid, block>>>(A, B, bias, C, M, N, K);
}
