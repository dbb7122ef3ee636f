// test: kernel=mm_bias rewrite=tile-k-loop tile=16
// expect: applies
// expect-output: float acc = (row < M && col < N) ? (bias[row]) : static_cast<float>(0);
// The accumulator starts from a per-row bias read before the loop: every
// thread of a tile runs the declaration, so the read is made only under the
// original bounds.
__global__ void mm_bias(const float* A, const float* B, const float* bias, float* C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = bias[row];
    for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
  }
}
void run(const float* A, const float* B, const float* bias, float* C, int M, int N, int K) {
  mm_bias<<<dim3((N + 15) / 16, (M + 15) / 16), dim3(16, 16)>>>(A, B, bias, C, M, N, K);
}
