// RMS norm over rows of half-precision activations, a thread per row.
// usage: rmsnorm_half [ROWS DIM]
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_fp16.h>

__global__ void rmsnorm(__half* out, const __half* x, const __half* weight, int rows, int dim, float eps) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const __half* xr = x + (long)r * dim;
  __half* outr = out + (long)r * dim;
  float ss = 0.0f;
  for (int i = 0; i < dim; i++) {
    float v = __half2float(xr[i]);
    ss += v * v;
  }
  float scale = rsqrtf(ss / dim + eps);
  for (int i = 0; i < dim; i++) {
    outr[i] = __float2half(__half2float(xr[i]) * scale * __half2float(weight[i]));
  }
}

int main(int argc, char** argv) {
  int rows = argc > 2 ? std::atoi(argv[1]) : 16384, dim = argc > 2 ? std::atoi(argv[2]) : 2048;
  size_t n = (size_t)rows * dim;
  std::vector<__half> hx(n), hw(dim);
  for (size_t i = 0; i < n; ++i) hx[i] = __float2half((float)((i * 7919) % 200) / 100.0f - 1.0f);
  for (int i = 0; i < dim; ++i) hw[i] = __float2half(0.5f + (float)(i % 10) / 10.0f);
  __half *x, *w, *o;
  cudaMalloc(&x, n * sizeof(__half));
  cudaMalloc(&o, n * sizeof(__half));
  cudaMalloc(&w, dim * sizeof(__half));
  cudaMemcpy(x, hx.data(), n * sizeof(__half), cudaMemcpyHostToDevice);
  cudaMemcpy(w, hw.data(), dim * sizeof(__half), cudaMemcpyHostToDevice);
  rmsnorm<<<(rows + 127) / 128, 128>>>(o, x, w, rows, dim, 1e-5f);
  cudaMemcpy(hx.data(), o, n * sizeof(__half), cudaMemcpyDeviceToHost);
  double s = 0;
  for (size_t i = 0; i < n; i += 13) s += __half2float(hx[i]);
  printf("rmsnorm %dx%d checksum %f\n", rows, dim, s);
  cudaFree(x); cudaFree(o); cudaFree(w);
  return 0;
}
