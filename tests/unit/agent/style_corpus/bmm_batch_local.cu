// A batched matrix product, the batch taken from blockIdx.z into a local
// and the operands offset by it with size_t arithmetic.
__global__ void batched_gemm(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                             int M, int N, int K) {
  const int batch = blockIdx.z;
  const int r = blockIdx.y * blockDim.y + threadIdx.y;
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < M && c < N) {
    const size_t a0 = (size_t)batch * M * K, b0 = (size_t)batch * K * N;
    float sum = 0.0f;
    for (int k = 0; k < K; ++k) sum += A[a0 + (size_t)r * K + k] * B[b0 + (size_t)k * N + c];
    C[(size_t)batch * M * N + (size_t)r * N + c] = sum;
  }
}
void gemm_batched(const float* A, const float* B, float* C, int batches, int M, int N, int K) {
  dim3 threads(16, 16);
  dim3 blocks((N + threads.x - 1) / threads.x, (M + threads.y - 1) / threads.y, batches);
  batched_gemm<<<blocks, threads>>>(A, B, C, M, N, K);
}
