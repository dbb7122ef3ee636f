// test: kernel=colsum rewrite=swap-thread-mapping
// expect: refuses warp-level primitives
__global__ void colsum(const float* A, float* out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  int c = blockIdx.y * blockDim.y + threadIdx.y;
  float v = (r < rows && c < cols) ? A[r * cols + c] : 0.0f;
  v += __shfl_down_sync(0xffffffffu, v, 16);
  if (c < cols && (threadIdx.x & 31) == 0) atomicAdd(&out[c], v);
}
void run(const float* A, float* out, int rows, int cols) {
  colsum<<<dim3((rows + 31) / 32, (cols + 7) / 8), dim3(32, 8)>>>(A, out, rows, cols);
}
