// Dot product of two 64M-float vectors: one element per thread, a
// shared-memory tree reduction per 256-thread block in double, then one
// atomicAdd(double*) per block. The inputs are multiples of 1/4, so the
// result is exact in double whatever the order of the additions.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define BLOCK 256

static void die_if(cudaError_t e, const char* what)
{
    if (e != cudaSuccess) {
        fprintf(stderr, "error in %s: %s\n", what, cudaGetErrorString(e));
        exit(2);
    }
}

__global__ void dot_kernel(const float* a, const float* b, double* result, long long n)
{
    __shared__ double cache[BLOCK];
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    int tid = threadIdx.x;

    double v = 0.0;
    if (i < n) v = (double)(a[i] * b[i]);
    cache[tid] = v;
    __syncthreads();

    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            cache[tid] += cache[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        atomicAdd(result, cache[0]);
}

int main()
{
    const long long n = 1LL << 26;
    float* a = (float*)malloc(n * sizeof(float));
    float* b = (float*)malloc(n * sizeof(float));
    for (long long i = 0; i < n; i++) {
        a[i] = (float)((i * 7) % 17 - 8) * 0.25f;
        b[i] = (float)((i * 13) % 11 - 5) * 0.25f;
    }

    float *d_a, *d_b;
    double* d_result;
    die_if(cudaMalloc(&d_a, n * sizeof(float)), "malloc a");
    die_if(cudaMalloc(&d_b, n * sizeof(float)), "malloc b");
    die_if(cudaMalloc(&d_result, sizeof(double)), "malloc result");
    die_if(cudaMemcpy(d_a, a, n * sizeof(float), cudaMemcpyHostToDevice), "copy a");
    die_if(cudaMemcpy(d_b, b, n * sizeof(float), cudaMemcpyHostToDevice), "copy b");
    die_if(cudaMemset(d_result, 0, sizeof(double)), "memset result");

    int grid = (int)((n + BLOCK - 1) / BLOCK);
    dot_kernel<<<grid, BLOCK>>>(d_a, d_b, d_result, n);
    die_if(cudaGetLastError(), "launch");
    die_if(cudaDeviceSynchronize(), "sync");

    double result = 0.0;
    die_if(cudaMemcpy(&result, d_result, sizeof(double), cudaMemcpyDeviceToHost), "copy result");

    double ref = 0.0;
    for (long long i = 0; i < n; i++) ref += (double)(a[i] * b[i]);

    printf("dot = %.4f (host %.4f)\n", result, ref);
    printf("%s\n", result == ref ? "match" : "MISMATCH");

    cudaFree(d_a); cudaFree(d_b); cudaFree(d_result);
    free(a); free(b);
    return 0;
}
