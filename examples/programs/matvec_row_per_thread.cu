// y = A x with one thread per row: at every step a warp's lanes read 32
// different rows.
// usage: matvec_row_per_thread [M N]
#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void matvec_rows(const float* A, const float* x, float* y, int M, int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M) {
    float acc = 0.0f;
    for (int k = 0; k < N; ++k) {
      acc += A[row * N + k] * x[k];
    }
    y[row] = acc;
  }
}

void matvec(const float* A, const float* x, float* y, int M, int N) {
  const int threads = 256;
  matvec_rows<<<(M + threads - 1) / threads, threads>>>(A, x, y, M, N);
}

int main(int argc, char** argv) {
  const int M = argc > 2 ? std::atoi(argv[1]) : 16384, N = argc > 2 ? std::atoi(argv[2]) : 4096;
  std::vector<float> hA(static_cast<size_t>(M) * N), hx(N), hy(M);
  for (size_t i = 0; i < hA.size(); ++i) hA[i] = static_cast<float>((i * 2246822519u) % 2001) * 0.001f - 1.0f;
  for (int k = 0; k < N; ++k) hx[k] = static_cast<float>(k % 97) * 0.02f - 0.97f;
  float *A, *x, *y;
  cudaMalloc(&A, hA.size() * sizeof(float));
  cudaMalloc(&x, N * sizeof(float));
  cudaMalloc(&y, M * sizeof(float));
  cudaMemcpy(A, hA.data(), hA.size() * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(x, hx.data(), N * sizeof(float), cudaMemcpyHostToDevice);
  matvec(A, x, y, M, N);
  cudaMemcpy(hy.data(), y, M * sizeof(float), cudaMemcpyDeviceToHost);
  double sum = 0;
  for (float v : hy) sum += v;
  std::printf("matvec %dx%d checksum %.6f\n", M, N, sum);
  cudaFree(A);
  cudaFree(x);
  cudaFree(y);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
