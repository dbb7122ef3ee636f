// Sum of every row of a matrix, with a 2-D block of (rows per block) x 1
// and a thread per row walking its row.
// usage: rowsum_2d [ROWS COLS]
#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void row_sums(const float* __restrict__ m, float* __restrict__ sums, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float s = 0;
    int j;
    for (j = 0; j < cols; j++) s += m[(size_t)r * cols + j];
    sums[r] = s;
  }
}

int main(int argc, char** argv) {
  int rows = argc > 2 ? std::atoi(argv[1]) : 32768, cols = argc > 2 ? std::atoi(argv[2]) : 1024;
  size_t n = (size_t)rows * cols;
  std::vector<float> h(n), hs(rows);
  for (size_t i = 0; i < n; ++i) h[i] = (float)((i * 3) % 7) - 3.0f;
  float *m, *s;
  cudaMalloc(&m, n * 4);
  cudaMalloc(&s, rows * 4);
  cudaMemcpy(m, h.data(), n * 4, cudaMemcpyHostToDevice);
  row_sums<<<(rows + 63) / 64, 64>>>(m, s, rows, cols);
  cudaMemcpy(hs.data(), s, rows * 4, cudaMemcpyDeviceToHost);
  double t = 0;
  for (int r = 0; r < rows; ++r) t += hs[r] * (r % 5);
  printf("rowsum %dx%d checksum %f\n", rows, cols, t);
  cudaFree(m); cudaFree(s);
  return 0;
}
