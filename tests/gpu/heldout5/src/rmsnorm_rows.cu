// RMS normalisation of every row of an 8192 x 4096 matrix with a learned
// per-column weight: y = x / sqrt(mean(x^2) + eps) * gamma, thread per row.
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

__global__ void rmsnorm(float* y, const float* x, const float* gamma,
                        int rows, int n, float eps)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < rows) {
        float ss = 0.0f;
        for (int j = 0; j < n; ++j) {
            float v = x[row * n + j];
            ss += v * v;
        }
        float scale = rsqrtf(ss / n + eps);
        for (int j = 0; j < n; ++j)
            y[row * n + j] = x[row * n + j] * scale * gamma[j];
    }
}

int main()
{
    int rows = 8192;
    int n = 4096;
    float eps = 1e-6f;
    size_t total = (size_t)rows * n;

    float* hx = new float[total];
    float* hy = new float[total];
    float* hg = new float[n];
    for (size_t i = 0; i < total; ++i)
        hx[i] = sinf((float)(i % 1000003) * 0.001f) + 0.25f;
    for (int j = 0; j < n; ++j)
        hg[j] = 1.0f + 0.1f * cosf(j * 0.01f);

    float *dx, *dy, *dg;
    cudaMalloc(&dx, total * sizeof(float));
    cudaMalloc(&dy, total * sizeof(float));
    cudaMalloc(&dg, n * sizeof(float));
    cudaMemcpy(dx, hx, total * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dg, hg, n * sizeof(float), cudaMemcpyHostToDevice);

    rmsnorm<<<(rows + 255) / 256, 256>>>(dy, dx, dg, rows, n, eps);
    cudaError_t err = cudaDeviceSynchronize();
    if (err != cudaSuccess) {
        printf("rmsnorm failed: %s\n", cudaGetErrorString(err));
        return 1;
    }

    cudaMemcpy(hy, dy, total * sizeof(float), cudaMemcpyDeviceToHost);
    double sum = 0.0, sumsq = 0.0;
    for (size_t i = 0; i < total; ++i) {
        sum += hy[i];
        sumsq += (double)hy[i] * hy[i];
    }
    printf("checksum sum=%.6f sumsq=%.6f y[0]=%.6f\n", sum, sumsq, hy[0]);

    cudaFree(dx);
    cudaFree(dy);
    cudaFree(dg);
    delete[] hx;
    delete[] hy;
    delete[] hg;
    return 0;
}
