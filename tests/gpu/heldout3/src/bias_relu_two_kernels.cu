// Two element-wise kernels back to back over a rows x cols matrix:
// t = a * b, then c = relu(t + bias[col]).
// usage: bias_relu_two_kernels [rows] [cols]
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call) do { cudaError_t e = (call); if (e != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)

__global__ void mul_kernel(const float* a, const float* b, float* t, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        t[i] = a[i] * b[i];
}

__global__ void bias_relu_kernel(const float* t, const float* bias, float* c, size_t n, int cols)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = fmaxf(t[i] + bias[i % cols], 0.f);
}

int main(int argc, char** argv)
{
    int rows = argc > 1 ? atoi(argv[1]) : 8192;
    int cols = argc > 2 ? atoi(argv[2]) : 4096;
    size_t n = (size_t)rows * cols;
    size_t bytes = n * sizeof(float);

    float* h_a = (float*)malloc(bytes);
    float* h_b = (float*)malloc(bytes);
    float* h_bias = (float*)malloc(cols * sizeof(float));
    float* h_c = (float*)malloc(bytes);
    for (size_t i = 0; i < n; ++i) {
        h_a[i] = (float)((i * 7) % 13) / 13.0f - 0.5f;
        h_b[i] = (float)((i * 3) % 11) / 11.0f + 0.25f;
    }
    for (int j = 0; j < cols; ++j)
        h_bias[j] = (float)(j % 9) / 9.0f - 0.3f;

    float *d_a, *d_b, *d_t, *d_c, *d_bias;
    CHECK(cudaMalloc(&d_a, bytes));
    CHECK(cudaMalloc(&d_b, bytes));
    CHECK(cudaMalloc(&d_t, bytes));
    CHECK(cudaMalloc(&d_c, bytes));
    CHECK(cudaMalloc(&d_bias, cols * sizeof(float)));
    CHECK(cudaMemcpy(d_a, h_a, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_b, h_b, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_bias, h_bias, cols * sizeof(float), cudaMemcpyHostToDevice));

    int threads = 256;
    unsigned int blocks = (unsigned int)((n + threads - 1) / threads);
    mul_kernel<<<blocks, threads>>>(d_a, d_b, d_t, n);
    bias_relu_kernel<<<blocks, threads>>>(d_t, d_bias, d_c, n, cols);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());

    CHECK(cudaMemcpy(h_c, d_c, bytes, cudaMemcpyDeviceToHost));
    double checksum = 0.0;
    for (size_t i = 0; i < n; ++i)
        checksum += h_c[i];
    printf("bias_relu %d x %d checksum %.6f\n", rows, cols, checksum);

    cudaFree(d_a); cudaFree(d_b); cudaFree(d_t); cudaFree(d_c); cudaFree(d_bias);
    free(h_a); free(h_b); free(h_bias); free(h_c);
    return 0;
}
