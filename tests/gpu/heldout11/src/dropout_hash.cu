// Dropout forward pass with a counter-based hash for the keep mask.
// y = x / (1 - p) where the element is kept, 0 otherwise; the mask is stored
// as one byte per element for the backward pass.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                        \
    do {                                                                        \
        cudaError_t err_ = (call);                                              \
        if (err_ != cudaSuccess) {                                              \
            fprintf(stderr, "CUDA error %s at %s:%d\n",                         \
                    cudaGetErrorString(err_), __FILE__, __LINE__);              \
            exit(1);                                                            \
        }                                                                       \
    } while (0)

// splitmix64 finaliser, top 32 bits
__device__ unsigned int hash_u32(unsigned long long key)
{
    key += 0x9E3779B97F4A7C15ull;
    key = (key ^ (key >> 30)) * 0xBF58476D1CE4E5B9ull;
    key = (key ^ (key >> 27)) * 0x94D049BB133111EBull;
    key ^= key >> 31;
    return (unsigned int)(key >> 32);
}

__global__ void dropout_forward(const float* __restrict__ x, float* __restrict__ y,
                                unsigned char* __restrict__ mask, size_t n,
                                float p, unsigned long long seed)
{
    float scale = 1.0f / (1.0f - p);
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        float u = (float)(hash_u32(seed ^ (unsigned long long)i) >> 8) * (1.0f / 16777216.0f);
        unsigned char keep = (u >= p) ? 1 : 0;
        mask[i] = keep;
        y[i] = keep ? x[i] * scale : 0.0f;
    }
}

int main()
{
    const size_t n = (size_t)1 << 26;   // 64M activations
    const float p = 0.1f;
    const unsigned long long seed = 0x1234ABCDull;

    float* h_x = (float*)malloc(n * sizeof(float));
    float* h_y = (float*)malloc(n * sizeof(float));
    unsigned char* h_mask = (unsigned char*)malloc(n);
    if (!h_x || !h_y || !h_mask) {
        fprintf(stderr, "host allocation failed\n");
        return 1;
    }
    for (size_t i = 0; i < n; ++i)
        h_x[i] = (float)((i * 7919u) % 1024u) / 64.0f - 8.0f;

    float *d_x, *d_y;
    unsigned char* d_mask;
    CUDA_CHECK(cudaMalloc(&d_x, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_y, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_mask, n));
    CUDA_CHECK(cudaMemcpy(d_x, h_x, n * sizeof(float), cudaMemcpyHostToDevice));

    const int threads = 256;
    const int blocks = 4096;   // grid-stride loop covers the rest
    dropout_forward<<<blocks, threads>>>(d_x, d_y, d_mask, n, p, seed);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());

    CUDA_CHECK(cudaMemcpy(h_y, d_y, n * sizeof(float), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(h_mask, d_mask, n, cudaMemcpyDeviceToHost));

    double sum = 0.0;
    size_t kept = 0;
    for (size_t i = 0; i < n; ++i) {
        sum += h_y[i];
        kept += h_mask[i];
    }
    printf("dropout: kept %zu of %zu (%.4f), checksum %.6f\n", kept, n,
           (double)kept / (double)n, sum);

    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFree(d_y));
    CUDA_CHECK(cudaFree(d_mask));
    free(h_x);
    free(h_y);
    free(h_mask);
    return 0;
}
