// Matrix transpose from a flat index: reads are coalesced, writes are
// `rows` floats apart.
// usage: transpose_flat [ROWS COLS]
#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void transpose_flat(const float* in, float* out, int rows, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows * cols) {
    int r = i / cols;
    int c = i % cols;
    out[c * rows + r] = in[i];
  }
}

int main(int argc, char** argv) {
  int rows = argc > 2 ? std::atoi(argv[1]) : 4096, cols = argc > 2 ? std::atoi(argv[2]) : 4096;
  size_t n = (size_t)rows * cols;
  std::vector<float> h(n);
  for (size_t i = 0; i < n; ++i) h[i] = (float)(i % 4093);
  float *in, *out;
  cudaMalloc(&in, n * 4);
  cudaMalloc(&out, n * 4);
  cudaMemcpy(in, h.data(), n * 4, cudaMemcpyHostToDevice);
  transpose_flat<<<(unsigned)((n + 511) / 512), 512>>>(in, out, rows, cols);
  cudaMemcpy(h.data(), out, n * 4, cudaMemcpyDeviceToHost);
  double s = 0;
  for (size_t i = 0; i < n; ++i) s += h[i] * (double)(i % 3);
  printf("transpose %dx%d checksum %f\n", rows, cols, s);
  cudaFree(in); cudaFree(out);
  return 0;
}
