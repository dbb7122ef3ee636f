// 256-bin histogram of an array of bytes: one thread per byte, one global
// atomicAdd per element on unsigned int bins.
// usage: histogram_256 [n]
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define NUM_BINS 256

__global__ void histogram(const unsigned char* __restrict__ data, unsigned int* bins, size_t n)
{
    size_t tid = blockDim.x * (size_t)blockIdx.x + threadIdx.x;
    if (tid >= n) return;
    unsigned int b = data[tid];
    atomicAdd(&bins[b], 1u);
}

int main(int argc, char** argv)
{
    size_t n = (size_t)64 << 20;
    if (argc > 1) n = strtoull(argv[1], NULL, 10);

    unsigned char* h_data = (unsigned char*)malloc(n);
    for (size_t i = 0; i < n; i++)
        h_data[i] = (unsigned char)(((i * 7) % 13) * 19 + (i >> 10) % 61 + (i % 29));
    unsigned int h_bins[NUM_BINS];

    unsigned char* d_data;
    unsigned int* d_bins;
    cudaMalloc(&d_data, n);
    cudaMalloc(&d_bins, NUM_BINS * sizeof(unsigned int));
    cudaMemcpy(d_data, h_data, n, cudaMemcpyHostToDevice);
    cudaMemset(d_bins, 0, NUM_BINS * sizeof(unsigned int));

    int blockSize = 256;
    int numBlocks = (int)((n + blockSize - 1) / blockSize);
    histogram<<<numBlocks, blockSize>>>(d_data, d_bins, n);
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) {
        fprintf(stderr, "launch failed: %s\n", cudaGetErrorString(err));
        return 1;
    }

    cudaMemcpy(h_bins, d_bins, NUM_BINS * sizeof(unsigned int), cudaMemcpyDeviceToHost);
    double checksum = 0.0;
    unsigned long long total = 0;
    for (int b = 0; b < NUM_BINS; b++) {
        checksum += (double)h_bins[b] * (b + 1);
        total += h_bins[b];
    }
    printf("histogram_256 n=%zu total=%llu checksum %.1f\n", n, total, checksum);

    cudaFree(d_data);
    cudaFree(d_bins);
    free(h_data);
    return 0;
}
