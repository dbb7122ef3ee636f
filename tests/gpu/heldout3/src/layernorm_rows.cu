// Layer normalisation over the rows of a matrix: one thread per row, three
// passes (mean, variance, normalise with gamma and beta), eps = 1e-5.
// usage: layernorm_rows [rows] [cols]
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

__global__ void layernorm(float* __restrict__ out, const float* __restrict__ in,
                          const float* __restrict__ gamma, const float* __restrict__ beta,
                          int rows, int cols)
{
    int r = threadIdx.x + blockIdx.x * blockDim.x;
    if (r < rows) {
        const float* row = in + (size_t)r * cols;
        float* orow = out + (size_t)r * cols;

        float mean = 0.0f;
        for (int c = 0; c < cols; c++)
            mean += row[c];
        mean /= cols;

        float var = 0.0f;
        for (int c = 0; c < cols; c++) {
            float d = row[c] - mean;
            var += d * d;
        }
        var /= cols;
        float rstd = 1.0f / sqrtf(var + 1e-5f);

        for (int c = 0; c < cols; c++)
            orow[c] = (row[c] - mean) * rstd * gamma[c] + beta[c];
    }
}

int main(int argc, char* argv[])
{
    int rows = 8192, cols = 1024;
    if (argc > 1) rows = atoi(argv[1]);
    if (argc > 2) cols = atoi(argv[2]);
    size_t n = (size_t)rows * cols;

    float* h_in = (float*)malloc(n * sizeof(float));
    float* h_out = (float*)malloc(n * sizeof(float));
    float* h_gamma = (float*)malloc(cols * sizeof(float));
    float* h_beta = (float*)malloc(cols * sizeof(float));
    for (size_t i = 0; i < n; i++)
        h_in[i] = (float)((i * 7) % 13) / 13.0f - 0.5f + (float)(i % 101) * 0.01f;
    for (int c = 0; c < cols; c++) {
        h_gamma[c] = 1.0f + (float)(c % 17) / 34.0f;
        h_beta[c] = (float)(c % 11) / 22.0f - 0.25f;
    }

    float *d_in, *d_out, *d_gamma, *d_beta;
    cudaMalloc((void**)&d_in, n * sizeof(float));
    cudaMalloc((void**)&d_out, n * sizeof(float));
    cudaMalloc((void**)&d_gamma, cols * sizeof(float));
    cudaMalloc((void**)&d_beta, cols * sizeof(float));
    cudaMemcpy(d_in, h_in, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_gamma, h_gamma, cols * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_beta, h_beta, cols * sizeof(float), cudaMemcpyHostToDevice);

    int threads = 256;
    int blocks = (rows + threads - 1) / threads;
    layernorm<<<blocks, threads>>>(d_out, d_in, d_gamma, d_beta, rows, cols);

    cudaMemcpy(h_out, d_out, n * sizeof(float), cudaMemcpyDeviceToHost);
    double sum = 0.0;
    for (size_t i = 0; i < n; i++)
        sum += (double)h_out[i] * (double)((i % 7) + 1);
    printf("layernorm %d x %d checksum %.6f\n", rows, cols, sum);

    cudaFree(d_in); cudaFree(d_out); cudaFree(d_gamma); cudaFree(d_beta);
    free(h_in); free(h_out); free(h_gamma); free(h_beta);
    return 0;
}
