// test: kernel=conv1d rewrite=window-tile-1d block=256
// expect: applies
// expect-output: __shared__ float wl_tile[266];
// expect-output: if (j < 0 || j >= n) continue;
// expect-output: acc += wl_tile[(int)threadIdx.x + (1) * k + (-5) - (-5)] * w[k];
// expect-launch: block=256,1,1
// A 1-D convolution with an 11-tap filter and zero padding: a block of 256
// threads stages its 266-element stretch once; each element is loaded only
// when some thread's window reaches it past the padding check.
#include <cuda_runtime.h>
#define TAPS 11
__global__ void conv1d(const float* x, const float* w, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float acc = 0.f;
  for (int k = 0; k < TAPS; ++k) {
    int j = i + k - TAPS / 2;
    if (j < 0 || j >= n) continue;
    acc += x[j] * w[k];
  }
  y[i] = acc;
}
void run(const float* x, const float* w, float* y, int n) {
  conv1d<<<(n + 127) / 128, 128>>>(x, w, y, n);
}
