// Count how many of 16M floats are above a threshold: one atomicAdd on a
// global int per element that passes.
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <cuda_runtime.h>

#define N (1 << 24)
#define THREADS 256

__global__ void count_above(const float* data, int n, float threshold, int* count)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        if (data[i] > threshold)
            atomicAdd(count, 1);
    }
}

int main()
{
    float* h_data = (float*)malloc(N * sizeof(float));
    for (int i = 0; i < N; i++)
        h_data[i] = sinf(i * 0.001f) * cosf(i * 0.00037f);
    const float threshold = 0.3f;

    float* d_data;
    int* d_count;
    cudaMalloc((void**)&d_data, N * sizeof(float));
    cudaMalloc((void**)&d_count, sizeof(int));
    cudaMemcpy(d_data, h_data, N * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemset(d_count, 0, sizeof(int));

    count_above<<<(N + THREADS - 1) / THREADS, THREADS>>>(d_data, N, threshold, d_count);
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
        printf("error: %s\n", cudaGetErrorString(e));
        return 1;
    }

    int h_count = 0;
    cudaMemcpy(&h_count, d_count, sizeof(int), cudaMemcpyDeviceToHost);

    int ref = 0;
    for (int i = 0; i < N; i++)
        if (h_data[i] > threshold) ref++;
    printf("count above %.2f: %d (host %d) %s\n", threshold, h_count, ref,
           h_count == ref ? "OK" : "MISMATCH");

    cudaFree(d_data);
    cudaFree(d_count);
    free(h_data);
    return 0;
}
