// Per-column standardisation with clamping over an 8192x8192 matrix:
// out[r][c] = clamp((x[r][c] - mu[c]) * inv_sigma[c], lo, hi).
// 2-D grid of 64x4 blocks, scalars first in the argument list.
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

#define CHECK(call)                                                        \
    {                                                                      \
        const cudaError_t error = call;                                    \
        if (error != cudaSuccess) {                                        \
            printf("Error: %s:%d, ", __FILE__, __LINE__);                  \
            printf("code:%d, reason: %s\n", error, cudaGetErrorString(error)); \
            exit(1);                                                       \
        }                                                                  \
    }

__global__ void standardize_clamp(float lo, float hi, const float* x, const float* mu,
                                  const float* inv_sigma, float* out, int rows, int cols)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols) {
        int idx = r * cols + c;
        float z = (x[idx] - mu[c]) * inv_sigma[c];
        out[idx] = fminf(fmaxf(z, lo), hi);
    }
}

int main()
{
    const int rows = 8192, cols = 8192;
    const size_t n = (size_t)rows * cols;
    const float lo = -2.5f, hi = 2.5f;

    float* h_x = (float*)malloc(n * sizeof(float));
    float* h_out = (float*)malloc(n * sizeof(float));
    float* h_mu = (float*)malloc(cols * sizeof(float));
    float* h_inv = (float*)malloc(cols * sizeof(float));
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++)
            h_x[(size_t)r * cols + c] = (float)((r * 13 + c * 7) % 200) * 0.05f;
    for (int c = 0; c < cols; c++) {
        h_mu[c] = 5.0f + 0.001f * (float)(c % 100);
        h_inv[c] = 1.0f / (1.0f + 0.25f * (float)(c % 8));
    }

    float *d_x, *d_out, *d_mu, *d_inv;
    CHECK(cudaMalloc(&d_x, n * sizeof(float)));
    CHECK(cudaMalloc(&d_out, n * sizeof(float)));
    CHECK(cudaMalloc(&d_mu, cols * sizeof(float)));
    CHECK(cudaMalloc(&d_inv, cols * sizeof(float)));
    CHECK(cudaMemcpy(d_x, h_x, n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_mu, h_mu, cols * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_inv, h_inv, cols * sizeof(float), cudaMemcpyHostToDevice));

    dim3 block(64, 4);
    dim3 grid((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
    standardize_clamp<<<grid, block>>>(lo, hi, d_x, d_mu, d_inv, d_out, rows, cols);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(h_out, d_out, n * sizeof(float), cudaMemcpyDeviceToHost));

    double checksum = 0.0;
    long clamped = 0;
    for (size_t i = 0; i < n; i++) {
        checksum += h_out[i];
        if (h_out[i] == lo || h_out[i] == hi) clamped++;
    }

    int bad = 0;
    for (size_t i = 0; i < n; i += 65537) {
        int c = (int)(i % cols);
        float z = (h_x[i] - h_mu[c]) * h_inv[c];
        float ref = fminf(fmaxf(z, lo), hi);
        if (ref != h_out[i]) bad++;
    }
    printf("checksum %.6f clamped %ld\n", checksum, clamped);
    printf("spot check: %s\n", bad ? "MISMATCH" : "match");

    CHECK(cudaFree(d_x));
    CHECK(cudaFree(d_out));
    CHECK(cudaFree(d_mu));
    CHECK(cudaFree(d_inv));
    free(h_x); free(h_out); free(h_mu); free(h_inv);
    return 0;
}
