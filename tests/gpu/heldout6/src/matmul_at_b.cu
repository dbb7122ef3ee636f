// C = A^T * B with A stored K x M and B stored K x N (both row-major); C is M x N.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

inline void check(cudaError_t e, int line)
{
    if (e != cudaSuccess) {
        printf("CUDA error at line %d: %s\n", line, cudaGetErrorString(e));
        exit(1);
    }
}

template <typename T>
__global__ void matmul_at_b(const T *A, const T *B, T *C, int M, int N, int K)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;   // row of C = column of A
    int col = blockIdx.x * blockDim.x + threadIdx.x;   // column of C = column of B
    if (row < M && col < N) {
        T sum = 0;
        for (int k = 0; k < K; ++k)
            sum += A[k * M + row] * B[k * N + col];
        C[row * N + col] = sum;
    }
}

int main()
{
    const int M = 2048, N = 2048, K = 1024;
    // the values are small multiples of 1/16 and 1/8, so every partial sum is exact in fp32
    std::vector<float> A((size_t)K * M), B((size_t)K * N), C((size_t)M * N);
    for (int k = 0; k < K; ++k)
        for (int i = 0; i < M; ++i)
            A[(size_t)k * M + i] = (float)((k * 3 + i * 7) % 17 - 8) * 0.0625f;
    for (int k = 0; k < K; ++k)
        for (int j = 0; j < N; ++j)
            B[(size_t)k * N + j] = (float)((k * 5 + j * 11) % 13 - 6) * 0.125f;

    float *dA, *dB, *dC;
    check(cudaMalloc(&dA, A.size() * sizeof(float)), __LINE__);
    check(cudaMalloc(&dB, B.size() * sizeof(float)), __LINE__);
    check(cudaMalloc(&dC, C.size() * sizeof(float)), __LINE__);
    check(cudaMemcpy(dA, A.data(), A.size() * sizeof(float), cudaMemcpyHostToDevice), __LINE__);
    check(cudaMemcpy(dB, B.data(), B.size() * sizeof(float), cudaMemcpyHostToDevice), __LINE__);

    dim3 threads(32, 8);
    dim3 blocks((N + threads.x - 1) / threads.x, (M + threads.y - 1) / threads.y);
    matmul_at_b<float><<<blocks, threads>>>(dA, dB, dC, M, N, K);
    check(cudaGetLastError(), __LINE__);
    check(cudaDeviceSynchronize(), __LINE__);

    check(cudaMemcpy(C.data(), dC, C.size() * sizeof(float), cudaMemcpyDeviceToHost), __LINE__);

    int wrong = 0;
    for (int t = 0; t < 64; ++t) {
        int i = (t * 331) % M, j = (t * 577 + 5) % N;
        float ref = 0.0f;
        for (int k = 0; k < K; ++k)
            ref += A[(size_t)k * M + i] * B[(size_t)k * N + j];
        if (ref != C[(size_t)i * N + j]) ++wrong;
    }
    double checksum = 0.0;
    for (size_t i = 0; i < C.size(); ++i)
        checksum += C[i];
    printf("C = A^T B, M=%d N=%d K=%d\n", M, N, K);
    printf("checksum %.4f, C[0]=%.4f, %d/64 spot checks wrong\n", checksum, C[0], wrong);

    cudaFree(dA);
    cudaFree(dB);
    cudaFree(dC);
    return 0;
}
