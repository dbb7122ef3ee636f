// Naive fp32 matmul C = A * B (A: M x K, B: K x N, all row-major).
// 2-D grid of 16x16 blocks, threadIdx.x picks the ROW of C, threadIdx.y the column.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define BLOCK 16
#define IDX(r, c, ld) ((r) * (ld) + (c))

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "CUDA: %s at line %d\n", cudaGetErrorString(e_), __LINE__); \
    exit(1); } } while (0)

__global__ void matmul_naive(const float *A, const float *B, float *C, int M, int N, int K)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    int col = blockIdx.y * blockDim.y + threadIdx.y;

    if (row < M && col < N) {
        float sum = 0.0f;
        for (int k = 0; k < K; ++k)
            sum += A[IDX(row, k, K)] * B[IDX(k, col, N)];
        C[IDX(row, col, N)] = sum;
    }
}

int main(int argc, char **argv)
{
    int M = 2048, N = 2048, K = 2048;
    if (argc == 2) { M = N = K = atoi(argv[1]); }
    if (argc >= 4) { M = atoi(argv[1]); N = atoi(argv[2]); K = atoi(argv[3]); }
    printf("matmul_naive M=%d N=%d K=%d\n", M, N, K);

    size_t sizeA = (size_t)M * K, sizeB = (size_t)K * N, sizeC = (size_t)M * N;
    float *hA = (float *)malloc(sizeA * sizeof(float));
    float *hB = (float *)malloc(sizeB * sizeof(float));
    float *hC = (float *)malloc(sizeC * sizeof(float));
    for (size_t i = 0; i < sizeA; ++i) hA[i] = (float)((int)(i % 17) - 8) * 0.0625f;
    for (size_t i = 0; i < sizeB; ++i) hB[i] = (float)((int)((i * 5) % 23) - 11) * 0.03125f;

    float *dA, *dB, *dC;
    CHECK(cudaMalloc(&dA, sizeA * sizeof(float)));
    CHECK(cudaMalloc(&dB, sizeB * sizeof(float)));
    CHECK(cudaMalloc(&dC, sizeC * sizeof(float)));
    CHECK(cudaMemcpy(dA, hA, sizeA * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dB, hB, sizeB * sizeof(float), cudaMemcpyHostToDevice));

    dim3 threads(BLOCK, BLOCK);
    dim3 grid((M + BLOCK - 1) / BLOCK, (N + BLOCK - 1) / BLOCK);
    matmul_naive<<<grid, threads>>>(dA, dB, dC, M, N, K);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(hC, dC, sizeC * sizeof(float), cudaMemcpyDeviceToHost));

    double checksum = 0.0, wsum = 0.0;
    for (size_t i = 0; i < sizeC; ++i) {
        checksum += hC[i];
        wsum += hC[i] * (double)(i % 11);
    }
    printf("checksum: %.6f weighted: %.6f C[0]=%.5f\n", checksum, wsum, hC[0]);

    cudaFree(dA); cudaFree(dB); cudaFree(dC);
    free(hA); free(hB); free(hC);
    return 0;
}
