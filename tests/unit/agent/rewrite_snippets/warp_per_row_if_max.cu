// test: kernel=softmax rewrite=warp-per-row lanes=32 cache=0
// expect: applies
// expect-output: if (o > v) v = o;
// expect-output: maxval = wl_warp_max_if(maxval);
// expect-output: sum = wl_warp_sum(sum);
// expect-launch: scale=32/1,1/1,1/1
// Softmax a thread per row, written the usual way: the maximum kept with an
// `if`, the exponentials stored and summed in one loop, then divided in
// place.
#include <cuda_runtime.h>
__global__ void softmax(float* out, const float* in, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float maxval = in[row * cols];
    for (int j = 1; j < cols; j++) {
      if (in[row * cols + j] > maxval) maxval = in[row * cols + j];
    }
    float sum = 0.0f;
    for (int j = 0; j < cols; j++) {
      out[row * cols + j] = expf(in[row * cols + j] - maxval);
      sum += out[row * cols + j];
    }
    for (int j = 0; j < cols; j++) {
      out[row * cols + j] /= sum;
    }
  }
}
void run(float* out, const float* in, int rows, int cols) { softmax<<<(rows + 255) / 256, 256>>>(out, in, rows, cols); }
