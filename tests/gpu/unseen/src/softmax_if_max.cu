// Softmax over the rows of a matrix, a thread per row, the max kept with
// an if.
// usage: softmax_if_max [ROWS COLS]
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>

__global__ void softmax_kernel(float* out, const float* in, int rows, int cols) {
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

int main(int argc, char** argv) {
  int rows = argc > 2 ? std::atoi(argv[1]) : 8192, cols = argc > 2 ? std::atoi(argv[2]) : 1024;
  size_t n = (size_t)rows * cols;
  std::vector<float> h(n);
  for (size_t i = 0; i < n; ++i) h[i] = (float)((i * 2654435761u) % 1000) / 100.0f - 5.0f;
  float *in, *out;
  cudaMalloc(&in, n * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  cudaMemcpy(in, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  int threads = 256;
  int blocks = (rows + threads - 1) / threads;
  softmax_kernel<<<blocks, threads>>>(out, in, rows, cols);
  cudaMemcpy(h.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost);
  double s = 0;
  for (size_t i = 0; i < n; ++i) s += h[i] * (double)(i % 7);
  printf("softmax %dx%d checksum %f\n", rows, cols, s);
  cudaFree(in); cudaFree(out);
  return 0;
}
