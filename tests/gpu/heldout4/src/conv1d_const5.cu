// 1-D convolution with a 5-tap filter (radius 2) kept in __constant__ memory,
// zero padding at both ends.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define RADIUS 2
#define FILTER_WIDTH (2 * RADIUS + 1)

__constant__ float c_filter[FILTER_WIDTH];

#define CHECK(call)                                                          \
    do {                                                                     \
        cudaError_t e = (call);                                              \
        if (e != cudaSuccess) {                                              \
            fprintf(stderr, "CUDA failure %s:%d '%s'\n", __FILE__, __LINE__, \
                    cudaGetErrorString(e));                                  \
            exit(EXIT_FAILURE);                                              \
        }                                                                    \
    } while (0)

__global__ void conv1d_5pt(const float* __restrict__ in, float* __restrict__ out, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;

    float acc = 0.0f;
    for (int k = -RADIUS; k <= RADIUS; ++k) {
        long long j = (long long)i + k;
        if (j >= 0 && j < (long long)n)
            acc += c_filter[k + RADIUS] * in[j];
    }
    out[i] = acc;
}

int main(int argc, char** argv)
{
    size_t n = (size_t)64 << 20;  // 64M floats
    if (argc > 1) n = strtoull(argv[1], NULL, 10);
    printf("conv1d_5pt: n=%zu radius=%d\n", n, RADIUS);

    const float h_filter[FILTER_WIDTH] = {0.0625f, 0.25f, 0.375f, 0.25f, 0.0625f};
    float* h_in = (float*)malloc(n * sizeof(float));
    float* h_out = (float*)malloc(n * sizeof(float));
    for (size_t i = 0; i < n; ++i)
        h_in[i] = (float)((i * 37) % 1000) * 0.001f - 0.5f;

    float *d_in, *d_out;
    CHECK(cudaMalloc(&d_in, n * sizeof(float)));
    CHECK(cudaMalloc(&d_out, n * sizeof(float)));
    CHECK(cudaMemcpy(d_in, h_in, n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpyToSymbol(c_filter, h_filter, sizeof(h_filter)));

    const unsigned int threads = 128;
    const unsigned int blocks = (unsigned int)((n + threads - 1) / threads);
    conv1d_5pt<<<blocks, threads>>>(d_in, d_out, n);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(h_out, d_out, n * sizeof(float), cudaMemcpyDeviceToHost));

    double checksum = 0.0;
    for (size_t i = 0; i < n; ++i)
        checksum += (double)h_out[i] * (double)(1 + (i & 7));
    printf("checksum: %.6f  out[0]=%.6f out[n-1]=%.6f\n", checksum, h_out[0], h_out[n - 1]);

    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    free(h_in);
    free(h_out);
    return 0;
}
