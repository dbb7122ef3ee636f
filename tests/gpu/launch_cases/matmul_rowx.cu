// Launch-change case (issue 13): a naive matrix product whose threadIdx.x
// walks the rows, the original of the swapped-mapping candidate.
#include <cstdio>
#include <vector>

__global__ void matmul_naive_rowx(const float* A, const float* B, float* C, int M, int N, int K) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  int col = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
  }
}

int main() {
  const int M = 48, N = 80, K = 24;
  std::vector<float> hA(M * K), hB(K * N);
  for (int i = 0; i < M * K; ++i) hA[i] = static_cast<float>(i % 7) * 0.5f - 1.0f;
  for (int i = 0; i < K * N; ++i) hB[i] = static_cast<float>(i % 11) * 0.25f - 1.0f;
  float *A, *B, *C;
  cudaMalloc(&A, M * K * sizeof(float));
  cudaMalloc(&B, K * N * sizeof(float));
  cudaMalloc(&C, M * N * sizeof(float));
  cudaMemcpy(A, hA.data(), M * K * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(B, hB.data(), K * N * sizeof(float), cudaMemcpyHostToDevice);
  dim3 block(16, 16), grid((M + 15) / 16, (N + 15) / 16);
  matmul_naive_rowx<<<grid, block>>>(A, B, C, M, N, K);
  std::vector<float> hC(M * N);
  cudaMemcpy(hC.data(), C, M * N * sizeof(float), cudaMemcpyDeviceToHost);
  double sum = 0;
  for (float v : hC) sum += v;
  std::printf("checksum %.6f\n", sum);
  return 0;
}
