// C = A * B with a 1-D launch: the output element comes from the flat
// thread index.
// usage: matmul_flat_index [M N K]
#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void matmul_flat(const float* A, const float* B, float* C, int M, int N, int K) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < M * N) {
    int row = idx / N;
    int col = idx % N;
    float sum = 0.0f;
    for (int k = 0; k < K; ++k) {
      sum += A[row * K + k] * B[k * N + col];
    }
    C[idx] = sum;
  }
}

int main(int argc, char** argv) {
  int M = argc > 3 ? std::atoi(argv[1]) : 2048, N = argc > 3 ? std::atoi(argv[2]) : 2048,
      K = argc > 3 ? std::atoi(argv[3]) : 2048;
  std::vector<float> hA((size_t)M * K), hB((size_t)K * N), hC((size_t)M * N);
  for (size_t i = 0; i < hA.size(); ++i) hA[i] = (float)((i * 13) % 17) / 17.0f - 0.5f;
  for (size_t i = 0; i < hB.size(); ++i) hB[i] = (float)((i * 7) % 23) / 23.0f - 0.5f;
  float *A, *B, *C;
  cudaMalloc(&A, hA.size() * 4);
  cudaMalloc(&B, hB.size() * 4);
  cudaMalloc(&C, hC.size() * 4);
  cudaMemcpy(A, hA.data(), hA.size() * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(B, hB.data(), hB.size() * 4, cudaMemcpyHostToDevice);
  int threads = 256;
  matmul_flat<<<(M * N + threads - 1) / threads, threads>>>(A, B, C, M, N, K);
  cudaMemcpy(hC.data(), C, hC.size() * 4, cudaMemcpyDeviceToHost);
  double s = 0;
  for (size_t i = 0; i < hC.size(); ++i) s += hC[i];
  printf("matmul %dx%dx%d checksum %f\n", M, N, K, s);
  cudaFree(A); cudaFree(B); cudaFree(C);
  return 0;
}
