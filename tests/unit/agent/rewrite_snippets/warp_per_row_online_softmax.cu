// test: kernel=softmax_online rewrite=warp-per-row lanes=32 cache=0
// expect: applies
// expect-output: wl_warp_online(mx, sum);
// expect-output: if (wl_lane != 0) sum = 0;
// A thread-per-row softmax with an online first pass (the running maximum
// and the sum rescaled whenever it grows, one read of the row), written
// with index math, __expf, the element first in fmaxf, and a write pass:
// each lane runs the recurrence over its elements and the lanes' pairs
// combine by the same rule.
#include <cuda_runtime.h>
#include <math.h>
__global__ void softmax_online(const float* in, float* out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float mx = -INFINITY;
    float sum = 0.f;
    for (int c = 0; c < cols; ++c) {
      const float v = in[r * cols + c];
      const float nm = fmaxf(v, mx);
      sum = __expf(v - nm) + sum * __expf(mx - nm);
      mx = nm;
    }
    for (int c = 0; c < cols; ++c) out[r * cols + c] = __expf(in[r * cols + c] - mx) / sum;
  }
}
void run(const float* in, float* out, int rows, int cols) {
  softmax_online<<<(rows + 127) / 128, 128>>>(in, out, rows, cols);
}
