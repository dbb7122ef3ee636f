// Global argmin of N floats with a single 64-bit atomicMin.
// Each element is packed as (order-preserving key of the value) << 32 | index,
// so the smallest packed word is the smallest value and, among equal values,
// the smallest index.  Every thread does one atomicMin on the same word.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>

#define N (1 << 25)
#define BLOCK 256

__device__ unsigned int order_key(float f)
{
    unsigned int u = __float_as_uint(f);
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

__global__ void argmin_atomic(const float* x, int n, unsigned long long* best)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned long long packed =
            ((unsigned long long)order_key(x[i]) << 32) | (unsigned int)i;
        atomicMin(best, packed);
    }
}

static unsigned int host_key(float f)
{
    unsigned int u;
    memcpy(&u, &f, sizeof u);
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

int main(void)
{
    float* h_x = (float*)malloc((size_t)N * sizeof(float));
    if (!h_x) { fprintf(stderr, "host allocation failed\n"); return 1; }

    // Mixed-sign multiples of 1/8 in [-2500, 2500]; each value occurs about
    // 800 times, so the minimum is tied and the first index must win.
    for (int i = 0; i < N; ++i) {
        unsigned int h = (unsigned int)i * 2654435761u + 0x9e3779b9u;
        h ^= h >> 16;
        h *= 0x45d9f3bu;
        h ^= h >> 16;
        h_x[i] = (float)((int)(h % 40001u) - 20000) * 0.125f;
    }

    float* d_x;
    unsigned long long* d_best;
    cudaMalloc((void**)&d_x, (size_t)N * sizeof(float));
    cudaMalloc((void**)&d_best, sizeof(unsigned long long));
    cudaMemcpy(d_x, h_x, (size_t)N * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemset(d_best, 0xFF, sizeof(unsigned long long));   // all ones = "no candidate yet"

    argmin_atomic<<<(N + BLOCK - 1) / BLOCK, BLOCK>>>(d_x, N, d_best);
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) {
        fprintf(stderr, "launch failed: %s\n", cudaGetErrorString(err));
        return 1;
    }
    err = cudaDeviceSynchronize();
    if (err != cudaSuccess) {
        fprintf(stderr, "kernel failed: %s\n", cudaGetErrorString(err));
        return 1;
    }

    unsigned long long best = 0;
    err = cudaMemcpy(&best, d_best, sizeof best, cudaMemcpyDeviceToHost);
    if (err != cudaSuccess) {
        fprintf(stderr, "copy back failed: %s\n", cudaGetErrorString(err));
        return 1;
    }

    // Host reference: first index of the minimum.
    int ref_idx = 0;
    int ties = 0;
    for (int i = 1; i < N; ++i)
        if (h_x[i] < h_x[ref_idx]) ref_idx = i;
    for (int i = 0; i < N; ++i)
        if (h_x[i] == h_x[ref_idx]) ++ties;
    unsigned long long ref = ((unsigned long long)host_key(h_x[ref_idx]) << 32) | (unsigned int)ref_idx;

    int got_idx = (int)(best & 0xFFFFFFFFull);
    printf("argmin_packed N=%d: min %.3f occurs %d times, first at %d; device index %d (packed %016llx)\n",
           N, h_x[ref_idx], ties, ref_idx, got_idx, best);
    printf("checksum %llu\n", best);

    cudaFree(d_x);
    cudaFree(d_best);
    free(h_x);

    if (best != ref) {
        printf("FAILED (expected packed %016llx)\n", ref);
        return 1;
    }
    printf("OK\n");
    return 0;
}
