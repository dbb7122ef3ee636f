// test: kernel=bmm rewrite=register-tile tile=128
// expect: applies
// expect-output: blockIdx.z
// expect-launch: block=16,16,1
// A batched matrix product: blockIdx.z picks the batch, the operands are
// offset by it through pointer locals; each batch is one 2-D problem.
__global__ void bmm(const float* A, const float* B, float* C, int M, int N, int K) {
  int b = blockIdx.z;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    const float* a = A + (size_t)b * M * K;
    const float* bb = B + (size_t)b * K * N;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += a[(size_t)row * K + k] * bb[(size_t)k * N + col];
    C[(size_t)b * M * N + (size_t)row * N + col] = acc;
  }
}
void run(const float* A, const float* B, float* C, int batch, int M, int N, int K) {
  dim3 block(16, 16);
  dim3 grid((N + 15) / 16, (M + 15) / 16, batch);
  bmm<<<grid, block>>>(A, B, C, M, N, K);
}
