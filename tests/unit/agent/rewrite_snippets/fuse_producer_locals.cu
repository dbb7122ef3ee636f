// test: kernel=tanh_kernel rewrite=fuse-elementwise
// expect: applies
// expect-output: y[i] = tanhf((wl_a_t1[(i)] + wl_a_bias[static_cast<int>((i) % wl_a_cols)] * static_cast<float>(wl_a_gain)));
// A producer that names its column and its scale in locals first
// (`int col = i % cols;`): each local is inlined at the consumer's element
// as its initialiser converted to its type.
#include <cuda_runtime.h>
__global__ void add_bias_kernel(const float* t1, const float* bias, float* t2, int n, int cols, float gain) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int col = i % cols;
    const float g = gain;
    t2[i] = t1[i] + bias[col] * g;
  }
}
__global__ void tanh_kernel(const float* t2, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = tanhf(t2[i]);
}
void run(const float* t1, const float* bias, float* y, int n, int cols) {
  float* t2;
  cudaMalloc(&t2, n * sizeof(float));
  add_bias_kernel<<<(n + 255) / 256, 256>>>(t1, bias, t2, n, cols, 2.0f);
  tanh_kernel<<<(n + 255) / 256, 256>>>(t2, y, n);
  cudaFree(t2);
}
