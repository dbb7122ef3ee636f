// Two launches: a residual add t = a + b (grid-stride loop), then
// y = SiLU(t + bias[col]) over the matrix with a 2-D grid.
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

#define ROWS 16384
#define COLS 4096

__global__ void residual_add(const float* a, const float* b, float* t, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        t[i] = a[i] + b[i];
}

__device__ __forceinline__ float silu(float v)
{
    return v / (1.0f + expf(-v));
}

__global__ void bias_silu(const float* __restrict__ t, const float* __restrict__ bias,
                          float* __restrict__ y, int rows, int cols)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < rows && col < cols) {
        size_t i = (size_t)row * cols + col;
        y[i] = silu(t[i] + bias[col]);
    }
}

int main()
{
    size_t n = (size_t)ROWS * COLS;
    size_t bytes = n * sizeof(float);

    float* a = (float*)malloc(bytes);
    float* b = (float*)malloc(bytes);
    float* bias = (float*)malloc(COLS * sizeof(float));
    float* y = (float*)malloc(bytes);
    for (size_t i = 0; i < n; ++i) {
        a[i] = (float)(i % 1024) / 256.0f - 2.0f;
        b[i] = (float)((i / COLS) % 33) / 16.0f - 1.0f;
    }
    for (int c = 0; c < COLS; ++c) bias[c] = 0.01f * (float)(c % 101) - 0.5f;

    float *d_a, *d_b, *d_t, *d_bias, *d_y;
    cudaMalloc(&d_a, bytes);
    cudaMalloc(&d_b, bytes);
    cudaMalloc(&d_t, bytes);
    cudaMalloc(&d_y, bytes);
    cudaMalloc(&d_bias, COLS * sizeof(float));
    cudaMemcpy(d_a, a, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_b, b, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_bias, bias, COLS * sizeof(float), cudaMemcpyHostToDevice);

    residual_add<<<2048, 256>>>(d_a, d_b, d_t, n);
    dim3 block(32, 8);
    dim3 grid(COLS / 32, ROWS / 8);
    bias_silu<<<grid, block>>>(d_t, d_bias, d_y, ROWS, COLS);
    cudaDeviceSynchronize();
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) {
        printf("CUDA error: %s\n", cudaGetErrorString(err));
        return 1;
    }

    cudaMemcpy(y, d_y, bytes, cudaMemcpyDeviceToHost);

    double sum = 0.0;
    for (size_t i = 0; i < n; ++i) sum += y[i];

    int bad = 0;
    for (size_t i = 0; i < n; i += 100003) {
        float v = a[i] + b[i] + bias[i % COLS];
        float ref = v / (1.0f + expf(-v));
        if (fabsf(ref - y[i]) > 1e-5f * (1.0f + fabsf(ref))) bad++;
    }
    printf("checksum = %f\n", sum);
    printf("%s\n", bad ? "MISMATCH" : "match");

    cudaFree(d_a); cudaFree(d_b); cudaFree(d_t); cudaFree(d_y); cudaFree(d_bias);
    free(a); free(b); free(bias); free(y);
    return 0;
}
