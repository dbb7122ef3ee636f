// test: kernel=conv_same rewrite=window-tile rows=8
// expect: applies
// expect-output: __shared__ float wl_tile[10][34];
// expect-output: if (ry < 0 || ry >= rows) continue;
// expect-output: if (wl_needed) wl_tile[wl_ty][wl_tx] = img[(long long)(cols) * wl_gy + (long long)(1) * wl_gx];
// expect-launch: block=32,8,1
// A 3x3 convolution with zero padding spelled as `continue` on the row and
// the column: a tile cell is loaded only when some thread's window reaches
// it past those checks, so the halo beyond the image is never read.
#include <cuda_runtime.h>
#define K 3
__global__ void conv_same(const float* img, const float* taps, float* out, int rows, int cols) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (col >= cols || row >= rows) return;
  float acc = 0.f;
  for (int i = 0; i < K; i++) {
    int ry = row + i - K / 2;
    if (ry < 0 || ry >= rows) continue;
    for (int j = 0; j < K; j++) {
      int rx = col + j - K / 2;
      if (rx < 0 || rx >= cols) continue;
      acc += img[ry * cols + rx] * taps[i * K + j];
    }
  }
  out[row * cols + col] = acc;
}
void run(const float* img, const float* taps, float* out, int rows, int cols) {
  dim3 block(16, 16);
  dim3 grid((cols + 15) / 16, (rows + 15) / 16);
  conv_same<<<grid, block>>>(img, taps, out, rows, cols);
}
