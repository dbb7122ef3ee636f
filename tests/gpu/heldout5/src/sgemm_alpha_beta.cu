// Naive SGEMM with alpha/beta: C = alpha * A * B + beta * C, all row-major,
// M = 2048, N = 1536, K = 2048.
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                     \
    do {                                                                     \
        cudaError_t e_ = (call);                                             \
        if (e_ != cudaSuccess) {                                             \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,              \
                    cudaGetErrorString(e_));                                 \
            exit(1);                                                         \
        }                                                                    \
    } while (0)

__global__ void sgemm_naive(int M, int N, int K, float alpha, const float* A,
                            const float* B, float beta, float* C)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float sum = 0.0f;
        for (int k = 0; k < K; ++k)
            sum += A[row * K + k] * B[k * N + col];
        C[row * N + col] = alpha * sum + beta * C[row * N + col];
    }
}

int main()
{
    const int M = 2048, N = 1536, K = 2048;
    const float alpha = 1.5f, beta = -0.5f;

    float* hA = (float*)malloc(sizeof(float) * M * K);
    float* hB = (float*)malloc(sizeof(float) * K * N);
    float* hC = (float*)malloc(sizeof(float) * M * N);
    for (int i = 0; i < M * K; ++i) hA[i] = sinf(i * 0.001f);
    for (int i = 0; i < K * N; ++i) hB[i] = cosf(i * 0.0007f);
    for (int i = 0; i < M * N; ++i) hC[i] = 0.01f * (float)(i % 17);

    float *dA, *dB, *dC;
    CUDA_CHECK(cudaMalloc(&dA, sizeof(float) * M * K));
    CUDA_CHECK(cudaMalloc(&dB, sizeof(float) * K * N));
    CUDA_CHECK(cudaMalloc(&dC, sizeof(float) * M * N));
    CUDA_CHECK(cudaMemcpy(dA, hA, sizeof(float) * M * K, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dB, hB, sizeof(float) * K * N, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dC, hC, sizeof(float) * M * N, cudaMemcpyHostToDevice));

    dim3 threads(16, 16);
    dim3 blocks((N + 15) / 16, (M + 15) / 16);
    sgemm_naive<<<blocks, threads>>>(M, N, K, alpha, dA, dB, beta, dC);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());

    CUDA_CHECK(cudaMemcpy(hC, dC, sizeof(float) * M * N, cudaMemcpyDeviceToHost));
    double checksum = 0.0;
    for (int i = 0; i < M * N; ++i) checksum += hC[i];
    printf("C checksum = %.4f, C[0][0] = %.6f, C[M-1][N-1] = %.6f\n",
           checksum, hC[0], hC[M * N - 1]);

    CUDA_CHECK(cudaFree(dA));
    CUDA_CHECK(cudaFree(dB));
    CUDA_CHECK(cudaFree(dC));
    free(hA);
    free(hB);
    free(hC);
    return 0;
}
