// test: kernel=row_copy_local rewrite=warp-per-row
// expect: refuses a local array each lane would fill only in part
// The row is staged in a per-thread array: split across lanes, each lane's
// copy would hold only every 32nd element when it is read back.
__global__ void row_copy_local(const float* A, float* y, int M) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M) {
    float m[16];
    for (int k = 0; k < 16; ++k) m[k] = A[row * 16 + k];
    float s = 0.0f;
    for (int k = 0; k < 16; ++k) s += m[k] * m[15 - k];
    y[row] = s;
  }
}
void run(const float* A, float* y, int M) { row_copy_local<<<(M + 255) / 256, 256>>>(A, y, M); }
