// A small elementwise chain written as three separate launches over a
// rows x cols activation: t1 = x * scale; t2 = t1 + bias[col]; y = tanhf(t2).
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

#define CHECK(call)                                                     \
    do {                                                                \
        cudaError_t rc = (call);                                        \
        if (rc != cudaSuccess) {                                        \
            fprintf(stderr, "error %d (%s) at %s:%d\n", (int)rc,        \
                    cudaGetErrorString(rc), __FILE__, __LINE__);        \
            exit(1);                                                    \
        }                                                               \
    } while (0)

__global__ void scale_kernel(const float* x, float* t1, float scale, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        t1[i] = x[i] * scale;
}

__global__ void add_bias_kernel(const float* t1, const float* bias, float* t2, int n, int cols)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int col = i % cols;
        t2[i] = t1[i] + bias[col];
    }
}

__global__ void tanh_kernel(const float* t2, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = tanhf(t2[i]);
}

int main(int argc, char** argv)
{
    int rows = 16384, cols = 4096;
    if (argc > 1) rows = atoi(argv[1]);
    if (argc > 2) cols = atoi(argv[2]);
    int n = rows * cols;
    float scale = 0.75f;
    printf("scale/bias/tanh chain: %d x %d = %d elements\n", rows, cols, n);

    float* h_x = (float*)malloc((size_t)n * sizeof(float));
    float* h_bias = (float*)malloc((size_t)cols * sizeof(float));
    float* h_y = (float*)malloc((size_t)n * sizeof(float));
    for (int i = 0; i < n; i++)
        h_x[i] = (float)((i * 13) % 401 - 200) / 100.0f;
    for (int c = 0; c < cols; c++)
        h_bias[c] = 0.1f * (float)(c % 9) - 0.4f;

    float *d_x, *d_bias, *d_t1, *d_t2, *d_y;
    CHECK(cudaMalloc(&d_x, (size_t)n * sizeof(float)));
    CHECK(cudaMalloc(&d_bias, (size_t)cols * sizeof(float)));
    CHECK(cudaMalloc(&d_t1, (size_t)n * sizeof(float)));
    CHECK(cudaMalloc(&d_t2, (size_t)n * sizeof(float)));
    CHECK(cudaMalloc(&d_y, (size_t)n * sizeof(float)));
    CHECK(cudaMemcpy(d_x, h_x, (size_t)n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_bias, h_bias, (size_t)cols * sizeof(float), cudaMemcpyHostToDevice));

    int block = 256;
    int grid = (n + block - 1) / block;
    scale_kernel<<<grid, block>>>(d_x, d_t1, scale, n);
    CHECK(cudaGetLastError());
    add_bias_kernel<<<grid, block>>>(d_t1, d_bias, d_t2, n, cols);
    CHECK(cudaGetLastError());
    tanh_kernel<<<grid, block>>>(d_t2, d_y, n);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());

    CHECK(cudaMemcpy(h_y, d_y, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost));
    double sum = 0.0, asum = 0.0;
    for (int i = 0; i < n; i++) {
        sum += h_y[i];
        asum += fabs((double)h_y[i]);
    }
    printf("checksum: sum=%.6f abs=%.6f y[12345]=%.6f\n", sum, asum, h_y[12345 % n]);

    cudaFree(d_x);
    cudaFree(d_bias);
    cudaFree(d_t1);
    cudaFree(d_t2);
    cudaFree(d_y);
    free(h_x);
    free(h_bias);
    free(h_y);
    return 0;
}
