// y = A^T x for a row-major M x N matrix A: one thread per output column,
// each thread walks down all M rows of its column.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                        \
    do {                                                                   \
        cudaError_t err_ = (call);                                         \
        if (err_ != cudaSuccess) {                                         \
            fprintf(stderr, "CUDA error %s at %s:%d\n",                    \
                    cudaGetErrorString(err_), __FILE__, __LINE__);         \
            exit(1);                                                       \
        }                                                                  \
    } while (0)

__global__ void gemv_t(const float* A, const float* x, float* y, int M, int N)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < N) {
        float acc = 0.0f;
        for (int i = 0; i < M; i++)
            acc += A[i * N + j] * x[i];
        y[j] = acc;
    }
}

int main(int argc, char** argv)
{
    int M = 8192, N = 8192;
    if (argc > 1) M = atoi(argv[1]);
    if (argc > 2) N = atoi(argv[2]);
    printf("gemv_t: M=%d N=%d\n", M, N);

    size_t bytesA = (size_t)M * N * sizeof(float);
    float* hA = (float*)malloc(bytesA);
    float* hx = (float*)malloc(M * sizeof(float));
    float* hy = (float*)malloc(N * sizeof(float));
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++)
            hA[(size_t)i * N + j] = (float)((i * 3 + j * 7) % 29) * 0.01f - 0.14f;
    for (int i = 0; i < M; i++)
        hx[i] = 1.0f / (1.0f + (float)(i % 64));

    float *dA, *dx, *dy;
    CHECK(cudaMalloc(&dA, bytesA));
    CHECK(cudaMalloc(&dx, M * sizeof(float)));
    CHECK(cudaMalloc(&dy, N * sizeof(float)));
    CHECK(cudaMemcpy(dA, hA, bytesA, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dx, hx, M * sizeof(float), cudaMemcpyHostToDevice));

    int threads = 256;
    int blocks = (N + threads - 1) / threads;
    gemv_t<<<blocks, threads>>>(dA, dx, dy, M, N);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());

    CHECK(cudaMemcpy(hy, dy, N * sizeof(float), cudaMemcpyDeviceToHost));
    double sum = 0.0, wsum = 0.0;
    for (int j = 0; j < N; j++) {
        sum += hy[j];
        wsum += (double)hy[j] * (double)((j % 13) + 1);
    }
    printf("checksum: sum=%.6f weighted=%.6f y[0]=%.6f y[N-1]=%.6f\n",
           sum, wsum, hy[0], hy[N - 1]);

    CHECK(cudaFree(dA));
    CHECK(cudaFree(dx));
    CHECK(cudaFree(dy));
    free(hA);
    free(hx);
    free(hy);
    return 0;
}
