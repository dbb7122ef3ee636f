// C = A * B^T (both operands stored with k fastest, as a linear layer's
// input and weight), a 2-D grid of 16x16 blocks.
// usage: matmul_nt [M N K]
#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void linear_nt(const float* A, const float* W, float* C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; k++) {
      acc += A[row * K + k] * W[col * K + k];
    }
    C[row * N + col] = acc;
  }
}

int main(int argc, char** argv) {
  int M = argc > 3 ? std::atoi(argv[1]) : 4096, N = argc > 3 ? std::atoi(argv[2]) : 2048,
      K = argc > 3 ? std::atoi(argv[3]) : 1024;
  std::vector<float> hA((size_t)M * K), hW((size_t)N * K), hC((size_t)M * N);
  for (size_t i = 0; i < hA.size(); ++i) hA[i] = (float)((i * 13) % 17) / 17.0f - 0.5f;
  for (size_t i = 0; i < hW.size(); ++i) hW[i] = (float)((i * 7) % 23) / 23.0f - 0.5f;
  float *A, *W, *C;
  cudaMalloc(&A, hA.size() * 4);
  cudaMalloc(&W, hW.size() * 4);
  cudaMalloc(&C, hC.size() * 4);
  cudaMemcpy(A, hA.data(), hA.size() * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(W, hW.data(), hW.size() * 4, cudaMemcpyHostToDevice);
  dim3 block(16, 16);
  dim3 grid((N + 15) / 16, (M + 15) / 16);
  linear_nt<<<grid, block>>>(A, W, C, M, N, K);
  cudaMemcpy(hC.data(), C, hC.size() * 4, cudaMemcpyDeviceToHost);
  double s = 0;
  for (size_t i = 0; i < hC.size(); ++i) s += hC[i];
  printf("linear %dx%dx%d checksum %f\n", M, N, K, s);
  cudaFree(A); cudaFree(W); cudaFree(C);
  return 0;
}
