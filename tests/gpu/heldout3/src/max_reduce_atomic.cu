// Maximum of a float array (mixed signs) into one global float, one atomic
// per element: the int-reinterpret trick (atomicMax on the int bits for
// v >= 0, atomicMin on the unsigned bits for v < 0).
// usage: max_reduce_atomic [n]
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

__device__ __forceinline__ float atomicMaxFloat(float* addr, float value)
{
    float old;
    old = (value >= 0) ? __int_as_float(atomicMax((int*)addr, __float_as_int(value)))
                       : __uint_as_float(atomicMin((unsigned int*)addr, __float_as_uint(value)));
    return old;
}

__global__ void max_reduce(const float* __restrict__ data, float* result, int n)
{
    int idx = threadIdx.x + blockDim.x * blockIdx.x;
    if (idx < n) {
        atomicMaxFloat(result, data[idx]);
    }
}

int main(int argc, char** argv)
{
    int n = 32 * 1024 * 1024;
    if (argc > 1) n = atoi(argv[1]);

    float* h_data = (float*)malloc((size_t)n * sizeof(float));
    for (int i = 0; i < n; ++i)
        h_data[i] = (float)((i * 7) % 1013) / 1013.0f - 0.75f + (float)(i % 4099) * 1e-4f;

    float* d_data;
    float* d_result;
    cudaMalloc(&d_data, (size_t)n * sizeof(float));
    cudaMalloc(&d_result, sizeof(float));
    cudaMemcpy(d_data, h_data, (size_t)n * sizeof(float), cudaMemcpyHostToDevice);
    float init = -INFINITY;
    cudaMemcpy(d_result, &init, sizeof(float), cudaMemcpyHostToDevice);

    const int threads = 512;
    int blocks = (n + threads - 1) / threads;
    max_reduce<<<blocks, threads>>>(d_data, d_result, n);

    float result = 0.0f;
    cudaMemcpy(&result, d_result, sizeof(float), cudaMemcpyDeviceToHost);
    double checksum = (double)result;
    printf("max_reduce n=%d checksum %.6f\n", n, checksum);

    cudaFree(d_data);
    cudaFree(d_result);
    free(h_data);
    return 0;
}
