// Character histogram of a text: a grid-stride loop, one global atomic per
// byte into 128 bins.
// usage: hist_text [BYTES]
#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void char_histogram(const unsigned char* text, unsigned int* bins, int n) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  int stride = blockDim.x * gridDim.x;
  for (int i = tid; i < n; i += stride) {
    unsigned char ch = text[i];
    atomicAdd(&bins[ch & 127], 1u);
  }
}

int main(int argc, char** argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : (1 << 26);
  std::vector<unsigned char> h(n);
  const char* words = "the quick brown fox jumps over the lazy dog ";
  for (int i = 0; i < n; ++i) h[i] = (unsigned char)words[(i * 7 + i / 13) % 44];
  unsigned char* text;
  unsigned int* bins;
  cudaMalloc(&text, n);
  cudaMalloc(&bins, 128 * sizeof(unsigned int));
  cudaMemcpy(text, h.data(), n, cudaMemcpyHostToDevice);
  cudaMemset(bins, 0, 128 * sizeof(unsigned int));
  char_histogram<<<1024, 256>>>(text, bins, n);
  std::vector<unsigned int> hb(128);
  cudaMemcpy(hb.data(), bins, 128 * sizeof(unsigned int), cudaMemcpyDeviceToHost);
  printf("hist: e=%u space=%u o=%u\n", hb['e'], hb[' '], hb['o']);
  cudaFree(text); cudaFree(bins);
  return 0;
}
