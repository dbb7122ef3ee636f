// Sum of every column of a row-major rows x cols matrix: one thread per
// column walks down all the rows.
// usage: col_sum [rows] [cols]
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

__global__ void column_sums(const float *m, float *sums, int rows, int cols)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (col >= cols)
        return;
    float s = 0.0f;
    for (int r = 0; r < rows; ++r)
        s += m[(size_t)r * cols + col];
    sums[col] = s;
}

int main(int argc, char **argv)
{
    int rows = 16384;
    int cols = 4096;
    if (argc > 1) rows = atoi(argv[1]);
    if (argc > 2) cols = atoi(argv[2]);
    size_t n = (size_t)rows * cols;

    float *h_m = (float *)malloc(n * sizeof(float));
    float *h_sums = (float *)malloc(cols * sizeof(float));
    for (size_t i = 0; i < n; i++)
        h_m[i] = (float)((i * 7) % 13) / 13.0f - 0.5f;

    float *d_m, *d_sums;
    cudaMalloc(&d_m, n * sizeof(float));
    cudaMalloc(&d_sums, cols * sizeof(float));
    cudaMemcpy(d_m, h_m, n * sizeof(float), cudaMemcpyHostToDevice);

    int block = 128;
    int grid = (cols + block - 1) / block;
    column_sums<<<grid, block>>>(d_m, d_sums, rows, cols);
    cudaDeviceSynchronize();

    cudaMemcpy(h_sums, d_sums, cols * sizeof(float), cudaMemcpyDeviceToHost);
    double checksum = 0.0;
    for (int c = 0; c < cols; c++)
        checksum += (double)h_sums[c] * (1.0 + (c % 5));
    printf("col_sum %d x %d checksum %.6f\n", rows, cols, checksum);

    cudaFree(d_m);
    cudaFree(d_sums);
    free(h_m);
    free(h_sums);
    return 0;
}
