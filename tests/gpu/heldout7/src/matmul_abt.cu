// Naive C = A * B^T in fp32: A is MxK and B is NxK, both row-major.
// One thread per element of C, dims passed in a struct by value.
// The inputs are small multiples of 1/4 and 1/2, so every sum is exact.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(x)                                                        \
    do {                                                                     \
        cudaError_t status = (x);                                            \
        if (status != cudaSuccess) {                                         \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__,    \
                    #x, cudaGetErrorString(status));                         \
            exit(EXIT_FAILURE);                                              \
        }                                                                    \
    } while (0)

struct MatDims {
    int M;
    int N;
    int K;
};

__global__ void matmul_abt(MatDims d, const float* A, const float* B, float* C)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < d.M && col < d.N) {
        const float* a = A + (size_t)row * d.K;
        const float* b = B + (size_t)col * d.K;
        float acc = 0.0f;
        for (int k = 0; k < d.K; ++k)
            acc += a[k] * b[k];
        C[(size_t)row * d.N + col] = acc;
    }
}

int main()
{
    MatDims d;
    d.M = 2048;
    d.N = 2048;
    d.K = 2048;

    std::vector<float> A((size_t)d.M * d.K), B((size_t)d.N * d.K), C((size_t)d.M * d.N);
    for (int i = 0; i < d.M; ++i)
        for (int k = 0; k < d.K; ++k)
            A[(size_t)i * d.K + k] = (float)((i * 3 + k * 5) % 9 - 4) * 0.25f;
    for (int j = 0; j < d.N; ++j)
        for (int k = 0; k < d.K; ++k)
            B[(size_t)j * d.K + k] = (float)((j * 7 + k) % 5 - 2) * 0.5f;

    float *dA, *dB, *dC;
    CUDA_CHECK(cudaMalloc(&dA, A.size() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&dB, B.size() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&dC, C.size() * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(dA, A.data(), A.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dB, B.data(), B.size() * sizeof(float), cudaMemcpyHostToDevice));

    dim3 block(16, 16);
    dim3 grid((d.N + block.x - 1) / block.x, (d.M + block.y - 1) / block.y);
    matmul_abt<<<grid, block>>>(d, dA, dB, dC);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());

    CUDA_CHECK(cudaMemcpy(C.data(), dC, C.size() * sizeof(float), cudaMemcpyDeviceToHost));

    double checksum = 0.0;
    for (size_t i = 0; i < C.size(); ++i) checksum += C[i] * (double)((i % 13) + 1);

    int bad = 0;
    for (int s = 0; s < 64; ++s) {
        int i = (s * 331) % d.M;
        int j = (s * 977 + 5) % d.N;
        float ref = 0.0f;
        for (int k = 0; k < d.K; ++k)
            ref += A[(size_t)i * d.K + k] * B[(size_t)j * d.K + k];
        if (ref != C[(size_t)i * d.N + j]) ++bad;
    }
    printf("C = A B^T (%d x %d x %d) checksum %.4f\n", d.M, d.N, d.K, checksum);
    printf("spot check: %s\n", bad ? "MISMATCH" : "match");

    CUDA_CHECK(cudaFree(dA));
    CUDA_CHECK(cudaFree(dB));
    CUDA_CHECK(cudaFree(dC));
    return 0;
}
