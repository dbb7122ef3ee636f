// Two back-to-back element-wise launches: t = x + bias[i % cols], then
// y = GELU(t) with the exact erf form.
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

static inline void check(cudaError_t e, const char* what)
{
    if (e != cudaSuccess) {
        fprintf(stderr, "%s failed: %s\n", what, cudaGetErrorString(e));
        exit(EXIT_FAILURE);
    }
}

__global__ void add_bias(const float* x, const float* bias, float* t, int n, int cols)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        t[i] = x[i] + bias[i % cols];
}

__global__ void gelu_erf(const float* t, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = t[i];
        y[i] = 0.5f * v * (1.0f + erff(v * 0.70710678118654752f));
    }
}

int main()
{
    int rows = 16384, cols = 4096;
    int n = rows * cols;                 // 67,108,864 fits in an int
    size_t bytes = (size_t)n * sizeof(float);

    float* h_x = (float*)malloc(bytes);
    float* h_bias = (float*)malloc(cols * sizeof(float));
    float* h_y = (float*)malloc(bytes);
    for (int i = 0; i < n; ++i)
        h_x[i] = (float)(i % 4001) * 0.0015f - 3.0f;
    for (int c = 0; c < cols; ++c)
        h_bias[c] = (float)(c % 17) * 0.05f - 0.4f;

    float *d_x, *d_bias, *d_t, *d_y;
    check(cudaMalloc(&d_x, bytes), "cudaMalloc x");
    check(cudaMalloc(&d_bias, cols * sizeof(float)), "cudaMalloc bias");
    check(cudaMalloc(&d_t, bytes), "cudaMalloc t");
    check(cudaMalloc(&d_y, bytes), "cudaMalloc y");
    check(cudaMemcpy(d_x, h_x, bytes, cudaMemcpyHostToDevice), "copy x");
    check(cudaMemcpy(d_bias, h_bias, cols * sizeof(float), cudaMemcpyHostToDevice), "copy bias");

    int block = 256;
    int grid = (n + block - 1) / block;
    add_bias<<<grid, block>>>(d_x, d_bias, d_t, n, cols);
    check(cudaGetLastError(), "add_bias launch");
    gelu_erf<<<grid, block>>>(d_t, d_y, n);
    check(cudaGetLastError(), "gelu_erf launch");
    check(cudaDeviceSynchronize(), "sync");

    check(cudaMemcpy(h_y, d_y, bytes, cudaMemcpyDeviceToHost), "copy y");

    double checksum = 0.0;
    for (int i = 0; i < n; ++i) checksum += h_y[i];

    int bad = 0;
    for (int i = 0; i < n; i += 9973) {
        float v = h_x[i] + h_bias[i % cols];
        float ref = 0.5f * v * (1.0f + erff(v * 0.70710678118654752f));
        if (fabsf(ref - h_y[i]) > 1e-5f * (1.0f + fabsf(ref))) ++bad;
    }
    printf("n %d checksum %.6f\n", n, checksum);
    printf("spot check: %s\n", bad ? "MISMATCH" : "match");

    cudaFree(d_x); cudaFree(d_bias); cudaFree(d_t); cudaFree(d_y);
    free(h_x); free(h_bias); free(h_y);
    return 0;
}
