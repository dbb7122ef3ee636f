// Launch-change case (issue 13): y = A x with one thread per row, the
// original of the warp-per-row candidate (more threads than the original:
// 32 per row). A plain program: allocate, fill, launch, print a checksum.
#include <cstdio>
#include <vector>

__global__ void matvec_rows(const float* A, const float* x, float* y, int M, int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M) {
    float acc = 0.0f;
    for (int k = 0; k < N; ++k) acc += A[row * N + k] * x[k];
    y[row] = acc;
  }
}

int main() {
  const int M = 1000, N = 96;
  std::vector<float> hA(static_cast<size_t>(M) * N), hx(N);
  for (size_t i = 0; i < hA.size(); ++i) hA[i] = static_cast<float>(i % 17) * 0.125f - 1.0f;
  for (int k = 0; k < N; ++k) hx[k] = static_cast<float>(k % 5) * 0.25f - 0.5f;
  float *A, *x, *y;
  cudaMalloc(&A, hA.size() * sizeof(float));
  cudaMalloc(&x, N * sizeof(float));
  cudaMalloc(&y, M * sizeof(float));
  cudaMemcpy(A, hA.data(), hA.size() * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(x, hx.data(), N * sizeof(float), cudaMemcpyHostToDevice);
  matvec_rows<<<(M + 127) / 128, 128>>>(A, x, y, M, N);
  std::vector<float> hy(M);
  cudaMemcpy(hy.data(), y, M * sizeof(float), cudaMemcpyDeviceToHost);
  double sum = 0;
  for (float v : hy) sum += v;
  std::printf("checksum %.6f\n", sum);
  return 0;
}
