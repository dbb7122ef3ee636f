// Naive matrix product in the good thread order (threadIdx.x along a row of
// C), with no reuse of the operands through shared memory.
// usage: matmul_naive_colx [M N K]
#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void matmul_naive_colx(const float* A, const float* B, float* C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) {
      acc += A[row * K + k] * B[k * N + col];
    }
    C[row * N + col] = acc;
  }
}

void matmul(const float* A, const float* B, float* C, int M, int N, int K) {
  dim3 block(16, 16);
  dim3 grid((N + block.x - 1) / block.x, (M + block.y - 1) / block.y);
  matmul_naive_colx<<<grid, block>>>(A, B, C, M, N, K);
}

int main(int argc, char** argv) {
  const int M = argc > 3 ? std::atoi(argv[1]) : 2048, N = argc > 3 ? std::atoi(argv[2]) : 2048,
            K = argc > 3 ? std::atoi(argv[3]) : 2048;
  std::vector<float> hA(static_cast<size_t>(M) * K), hB(static_cast<size_t>(K) * N), hC(static_cast<size_t>(M) * N);
  for (size_t i = 0; i < hA.size(); ++i) hA[i] = static_cast<float>((i * 31) % 101) * 0.02f - 1.0f;
  for (size_t i = 0; i < hB.size(); ++i) hB[i] = static_cast<float>((i * 17) % 89) * 0.02f - 0.9f;
  float *A, *B, *C;
  cudaMalloc(&A, hA.size() * sizeof(float));
  cudaMalloc(&B, hB.size() * sizeof(float));
  cudaMalloc(&C, hC.size() * sizeof(float));
  cudaMemcpy(A, hA.data(), hA.size() * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(B, hB.data(), hB.size() * sizeof(float), cudaMemcpyHostToDevice);
  matmul(A, B, C, M, N, K);
  cudaMemcpy(hC.data(), C, hC.size() * sizeof(float), cudaMemcpyDeviceToHost);
  double sum = 0;
  for (float v : hC) sum += v;
  std::printf("matmul %dx%dx%d checksum %.6f\n", M, N, K, sum);
  cudaFree(A);
  cudaFree(B);
  cudaFree(C);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
