// Largest absolute value of a big float array: shared-memory tree reduction per block,
// then one atomicMax per block on the float's bit pattern (valid because |x| >= 0).
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <cuda_runtime.h>

#define BLOCK 256

__global__ void max_abs_reduce(const float *x, int *result, unsigned int n)
{
    __shared__ float sdata[BLOCK];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;

    sdata[tid] = (i < n) ? fabsf(x[i]) : 0.0f;
    __syncthreads();

    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0)
            sdata[tid] = fmaxf(sdata[tid], sdata[tid + s]);
        __syncthreads();
    }

    if (tid == 0)
        atomicMax(result, __float_as_int(sdata[0]));
}

int main(void)
{
    const unsigned int n = 1u << 26;
    float *h_x = (float *)malloc((size_t)n * sizeof(float));
    for (unsigned int i = 0; i < n; i++)
        h_x[i] = sinf(i * 0.0001f) * (1.0f + (i % 1000) * 0.001f);
    h_x[12345677] = -7.25f;  // the answer

    float host_max = 0.0f;
    for (unsigned int i = 0; i < n; i++)
        host_max = fmaxf(host_max, fabsf(h_x[i]));

    float *d_x;
    int *d_result;
    cudaMalloc(&d_x, (size_t)n * sizeof(float));
    cudaMalloc(&d_result, sizeof(int));
    cudaMemcpy(d_x, h_x, (size_t)n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemset(d_result, 0, sizeof(int));  // bit pattern of 0.0f

    unsigned int blocks = (n + BLOCK - 1) / BLOCK;
    max_abs_reduce<<<blocks, BLOCK>>>(d_x, d_result, n);
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) {
        fprintf(stderr, "kernel launch error: %s\n", cudaGetErrorString(err));
        return 1;
    }

    int bits = 0;
    err = cudaMemcpy(&bits, d_result, sizeof(int), cudaMemcpyDeviceToHost);
    if (err != cudaSuccess) {
        fprintf(stderr, "copy back error: %s\n", cudaGetErrorString(err));
        return 1;
    }
    float gpu_max;
    memcpy(&gpu_max, &bits, sizeof(float));

    printf("n = %u\n", n);
    printf("max |x| gpu = %.7f host = %.7f %s\n", gpu_max, host_max,
           gpu_max == host_max ? "OK" : "DIFFERENT");

    cudaFree(d_x);
    cudaFree(d_result);
    free(h_x);
    return 0;
}
