// test: kernel=mm_count rewrite=tile-k-loop
// expect: refuses statements with effects before the loop
// A store before the loop: every thread of a tile would run it, also
// outside the bounds, so the kernel is not staged.
__global__ void mm_count(const float* A, const float* B, float* C, int* visits, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    visits[row * N + col] += 1;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
  }
}
void run(const float* A, const float* B, float* C, int* v, int M, int N, int K) {
  mm_count<<<dim3((N + 15) / 16, (M + 15) / 16), dim3(16, 16)>>>(A, B, C, v, M, N, K);
}
