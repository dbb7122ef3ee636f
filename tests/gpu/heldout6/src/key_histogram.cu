// Count how many times each key occurs (keys in [0, NUM_BINS)) with global atomics.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define gpuErrchk(ans) { gpuAssert((ans), __FILE__, __LINE__); }
inline void gpuAssert(cudaError_t code, const char *file, int line, bool abort = true)
{
    if (code != cudaSuccess) {
        fprintf(stderr, "GPUassert: %s %s %d\n", cudaGetErrorString(code), file, line);
        if (abort) exit(code);
    }
}

#define NUM_KEYS (1 << 25)
#define NUM_BINS 1024

__global__ void count_keys(const unsigned int *keys, unsigned int *counts, size_t n)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride) {
        unsigned int k = keys[i];
        atomicAdd(&counts[k], 1u);
    }
}

static unsigned int make_key(unsigned int i)
{
    unsigned int h = i * 2654435761u;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    unsigned int k = h % NUM_BINS;
    if (i % 8 == 0) k = k % 64;  // a few hot keys, as in real data
    return k;
}

int main()
{
    const size_t n = NUM_KEYS;
    unsigned int *h_keys = new unsigned int[n];
    unsigned int *h_counts = new unsigned int[NUM_BINS];
    unsigned int *ref = new unsigned int[NUM_BINS]();
    for (size_t i = 0; i < n; i++) {
        h_keys[i] = make_key((unsigned int)i);
        ref[h_keys[i]]++;
    }

    unsigned int *d_keys, *d_counts;
    gpuErrchk(cudaMalloc(&d_keys, n * sizeof(unsigned int)));
    gpuErrchk(cudaMalloc(&d_counts, NUM_BINS * sizeof(unsigned int)));
    gpuErrchk(cudaMemcpy(d_keys, h_keys, n * sizeof(unsigned int), cudaMemcpyHostToDevice));
    gpuErrchk(cudaMemset(d_counts, 0, NUM_BINS * sizeof(unsigned int)));

    const int threads = 256;
    const int blocks = 2048;
    count_keys<<<blocks, threads>>>(d_keys, d_counts, n);
    gpuErrchk(cudaPeekAtLastError());
    gpuErrchk(cudaDeviceSynchronize());

    gpuErrchk(cudaMemcpy(h_counts, d_counts, NUM_BINS * sizeof(unsigned int), cudaMemcpyDeviceToHost));

    unsigned long long total = 0, weighted = 0;
    int mismatches = 0;
    for (int b = 0; b < NUM_BINS; b++) {
        total += h_counts[b];
        weighted += (unsigned long long)h_counts[b] * (unsigned long long)(b + 1);
        if (h_counts[b] != ref[b]) mismatches++;
    }
    printf("keys %zu bins %d\n", n, NUM_BINS);
    printf("total %llu weighted %llu bin0 %u bin%d %u\n", total, weighted,
           h_counts[0], NUM_BINS - 1, h_counts[NUM_BINS - 1]);
    printf("%s (%d bins differ from the host count)\n", mismatches ? "MISMATCH" : "match", mismatches);

    cudaFree(d_keys);
    cudaFree(d_counts);
    delete[] h_keys;
    delete[] h_counts;
    delete[] ref;
    return mismatches ? 1 : 0;
}
