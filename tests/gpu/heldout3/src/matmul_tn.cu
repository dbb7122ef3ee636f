// C = A^T * B in fp32, one thread per element of C (M x N), A stored
// k-major (A[k*M + i], K x M) and B row-major (B[k*N + j], K x N).
// usage: matmul_tn [M] [N] [K]
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

template <int BLOCK>
__global__ void matmul_tn(const float* A, const float* B, float* C, int M, int N, int K)
{
    int i = blockIdx.y * BLOCK + threadIdx.y;   // row of C
    int j = blockIdx.x * BLOCK + threadIdx.x;   // column of C
    if (i < M && j < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k)
            acc += A[(size_t)k * M + i] * B[(size_t)k * N + j];
        C[(size_t)i * N + j] = acc;
    }
}

int main(int argc, char** argv)
{
    int M = argc > 1 ? atoi(argv[1]) : 2048;
    int N = argc > 2 ? atoi(argv[2]) : 2048;
    int K = argc > 3 ? atoi(argv[3]) : 2048;

    size_t sizeA = (size_t)K * M, sizeB = (size_t)K * N, sizeC = (size_t)M * N;
    float* hA = new float[sizeA];
    float* hB = new float[sizeB];
    float* hC = new float[sizeC];
    for (size_t i = 0; i < sizeA; ++i) hA[i] = (float)((i * 7) % 13) / 13.0f - 0.5f;
    for (size_t i = 0; i < sizeB; ++i) hB[i] = (float)((i * 5) % 17) / 17.0f - 0.5f;

    float *dA, *dB, *dC;
    cudaMalloc(&dA, sizeA * sizeof(float));
    cudaMalloc(&dB, sizeB * sizeof(float));
    cudaMalloc(&dC, sizeC * sizeof(float));
    cudaMemcpy(dA, hA, sizeA * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dB, hB, sizeB * sizeof(float), cudaMemcpyHostToDevice);

    const int BS = 16;
    dim3 threads(BS, BS);
    dim3 blocks((N + BS - 1) / BS, (M + BS - 1) / BS);
    matmul_tn<BS><<<blocks, threads>>>(dA, dB, dC, M, N, K);
    cudaDeviceSynchronize();

    cudaMemcpy(hC, dC, sizeC * sizeof(float), cudaMemcpyDeviceToHost);
    double checksum = 0.0;
    for (size_t i = 0; i < sizeC; ++i)
        checksum += hC[i] * (double)((i % 3) + 1);
    printf("matmul_tn %dx%dx%d checksum %.6f\n", M, N, K, checksum);

    cudaFree(dA); cudaFree(dB); cudaFree(dC);
    delete[] hA; delete[] hB; delete[] hC;
    return 0;
}
