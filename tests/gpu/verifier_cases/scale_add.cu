// Verifier GPU case: out[i] = alpha * x[i] + y[i], launched twice through the
// runtime (<<<>>>). The first launch (n = 1M, alpha = 2.5, x = 1, y = 0.5)
// produces the constant 3.0 everywhere, which a cheating candidate can
// hard-code; the second has an odd size and varied values. `out` has 256
// floats of slack past n that the kernel never touches.
//
//   scale_add [N]   N elements instead of 1M (the GPU suite records a small
//                   capture, blobs and all, as a CI fixture)
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void scale_add(const float* x, const float* y, float* out, float alpha, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = alpha * x[i] + y[i];
}

#define CHECK(call)                                                             \
  do {                                                                          \
    cudaError_t e_ = (call);                                                    \
    if (e_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_));          \
      return 1;                                                                 \
    }                                                                           \
  } while (0)

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 1 << 20, slack = 256;
  if (n < 8) {
    std::fprintf(stderr, "usage: scale_add [N >= 8]\n");
    return 64;
  }
  std::vector<float> x(n, 1.0f), y(n, 0.5f), out(n + slack);
  float *dx, *dy, *dout;
  CHECK(cudaMalloc(&dx, n * sizeof(float)));
  CHECK(cudaMalloc(&dy, n * sizeof(float)));
  CHECK(cudaMalloc(&dout, (n + slack) * sizeof(float)));
  CHECK(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dy, y.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dout, 0, (n + slack) * sizeof(float)));
  scale_add<<<(n + 127) / 128, 128>>>(dx, dy, dout, 2.5f, n);
  CHECK(cudaGetLastError());

  for (int i = 0; i < n; ++i) {
    x[i] = 0.001f * static_cast<float>(i % 1000) - 0.5f;
    y[i] = 0.25f * static_cast<float>(i % 7);
  }
  CHECK(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dy, y.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  const int m = n - 3;
  scale_add<<<(m + 127) / 128, 128>>>(dx, dy, dout, 0.5f, m);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(out.data(), dout, (n + slack) * sizeof(float), cudaMemcpyDeviceToHost));
  double sum = 0;
  for (float v : out) sum += v;
  std::printf("scale_add checksum %.3f\n", sum);
  return 0;
}
