// L2-normalise each row, one thread per row, as a template over the element type.
#include <cuda_runtime.h>
template <typename T>
__global__ void normalize_rows(const T* in, T* out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    T ss = 0;
    for (int c = 0; c < cols; ++c) ss += in[r * cols + c] * in[r * cols + c];
    const T inv = T(1) / sqrt(ss + T(1e-12));
    for (int c = 0; c < cols; ++c) out[r * cols + c] = in[r * cols + c] * inv;
  }
}
void run(const float* in, float* out, int rows, int cols) {
  normalize_rows<float><<<(rows + 255) / 256, 256>>>(in, out, rows, cols);
}
