// y = gelu(x + bias[col]) over a matrix, a 2-D grid with a thread per
// element.
// usage: bias_gelu_2d [ROWS COLS]
#include <cstdio>
#include <cstdlib>
#include <vector>

__device__ float gelu(float v) {
  return 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
}

__global__ void bias_gelu(const float* x, const float* bias, float* y, int rows, int cols) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < rows && col < cols) {
    y[row * cols + col] = gelu(x[row * cols + col] + bias[col]);
  }
}

int main(int argc, char** argv) {
  int rows = argc > 2 ? std::atoi(argv[1]) : 8192, cols = argc > 2 ? std::atoi(argv[2]) : 4096;
  size_t n = (size_t)rows * cols;
  std::vector<float> h(n), hb(cols);
  for (size_t i = 0; i < n; ++i) h[i] = (float)((i * 31) % 401) / 100.0f - 2.0f;
  for (int c = 0; c < cols; ++c) hb[c] = (float)(c % 5) * 0.1f;
  float *x, *b, *y;
  cudaMalloc(&x, n * 4);
  cudaMalloc(&y, n * 4);
  cudaMalloc(&b, cols * 4);
  cudaMemcpy(x, h.data(), n * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(b, hb.data(), cols * 4, cudaMemcpyHostToDevice);
  dim3 block(16, 16);
  dim3 grid((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
  bias_gelu<<<grid, block>>>(x, b, y, rows, cols);
  cudaMemcpy(h.data(), y, n * 4, cudaMemcpyDeviceToHost);
  double s = 0;
  for (size_t i = 0; i < n; ++i) s += h[i];
  printf("bias_gelu %dx%d checksum %f\n", rows, cols, s);
  cudaFree(x); cudaFree(b); cudaFree(y);
  return 0;
}
