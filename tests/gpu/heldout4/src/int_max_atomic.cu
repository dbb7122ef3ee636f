// Maximum of a signed int array: every thread does one atomicMax on a
// single global result.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cuda_runtime.h>

#define CUDA_CHECK(x)                                                        \
    {                                                                        \
        cudaError_t e = (x);                                                 \
        if (e != cudaSuccess) {                                              \
            printf("CUDA error: %s (%s:%d)\n", cudaGetErrorString(e),        \
                   __FILE__, __LINE__);                                      \
            exit(1);                                                         \
        }                                                                    \
    }

#define INT_MIN_VALUE (-2147483647 - 1)

__global__ void int_max(const int* data, int* result, unsigned int n)
{
    unsigned int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < n)
        atomicMax(result, data[idx]);
}

int main(int argc, char* argv[])
{
    unsigned int n = 1u << 24;
    if (argc > 1) n = (unsigned int)strtoul(argv[1], nullptr, 10);
    printf("int_max over %u ints\n", n);

    int* h = (int*)malloc((size_t)n * sizeof(int));
    for (unsigned int i = 0; i < n; i++) {
        uint32_t k = i * 2654435761u;
        h[i] = (int)(k % 2000003u) - 1000001;
    }

    int* d_data;
    int* d_result;
    CUDA_CHECK(cudaMalloc((void**)&d_data, (size_t)n * sizeof(int)));
    CUDA_CHECK(cudaMalloc((void**)&d_result, sizeof(int)));
    CUDA_CHECK(cudaMemcpy(d_data, h, (size_t)n * sizeof(int), cudaMemcpyHostToDevice));
    int init = INT_MIN_VALUE;
    CUDA_CHECK(cudaMemcpy(d_result, &init, sizeof(int), cudaMemcpyHostToDevice));

    unsigned int threads = 256;
    unsigned int blocks = (n + threads - 1) / threads;
    int_max<<<blocks, threads>>>(d_data, d_result, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());

    int gpu_max = 0;
    CUDA_CHECK(cudaMemcpy(&gpu_max, d_result, sizeof(int), cudaMemcpyDeviceToHost));

    double checksum = 0.0;
    for (unsigned int i = 0; i < n; i++)
        checksum += (double)h[i];
    printf("max = %d  (input checksum %.1f)\n", gpu_max, checksum);
    printf("checksum: %.1f\n", (double)gpu_max);

    CUDA_CHECK(cudaFree(d_data));
    CUDA_CHECK(cudaFree(d_result));
    free(h);
    return 0;
}
