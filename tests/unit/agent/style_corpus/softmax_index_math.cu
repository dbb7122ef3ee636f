// softmax, one thread per row, index arithmetic on the parameters.
#include <cuda_runtime.h>
__global__ void softmax_rows(const float* in, float* out, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float mx = in[row * cols];
    for (int c = 1; c < cols; ++c) mx = fmaxf(mx, in[row * cols + c]);
    float sum = 0.0f;
    for (int c = 0; c < cols; ++c) sum += __expf(in[row * cols + c] - mx);
    for (int c = 0; c < cols; ++c) out[row * cols + c] = __expf(in[row * cols + c] - mx) / sum;
  }
}
void softmax(const float* in, float* out, int rows, int cols) {
  softmax_rows<<<(rows + 255) / 256, 256>>>(in, out, rows, cols);
}
