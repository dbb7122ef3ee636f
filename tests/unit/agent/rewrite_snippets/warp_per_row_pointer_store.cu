// test: kernel=sum_to rewrite=warp-per-row
// expect: refuses stores through a pointer
// A store the subscript checks cannot see: `*out += ...` inside the loop.
__global__ void sum_to(const float* A, float* out, int M, int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M) {
    for (int k = 0; k < N; ++k) *(out + row) += A[row * N + k];
  }
}
void run(const float* A, float* out, int M, int N) { sum_to<<<(M + 255) / 256, 256>>>(A, out, M, N); }
