// Mean of every column of a row-major matrix (reduce over the rows).
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define NROWS 8192
#define NCOLS 8192
#define BLOCK_SIZE 128

__global__ void column_mean(const float *m, float *mean, int nrows, int ncols)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (col < ncols) {
        float acc = 0.0f;
        for (int r = 0; r < nrows; r++)
            acc += m[r * ncols + col];
        mean[col] = acc / nrows;
    }
}

int main(void)
{
    size_t count = (size_t)NROWS * NCOLS;
    float *h_m = (float *)malloc(count * sizeof(float));
    float *h_mean = (float *)malloc(NCOLS * sizeof(float));

    for (int r = 0; r < NROWS; r++)
        for (int c = 0; c < NCOLS; c++)
            h_m[(size_t)r * NCOLS + c] = (float)((r * 7 + c * 13) % 101) * 0.01f - 0.5f;

    float *d_m, *d_mean;
    cudaMalloc((void **)&d_m, count * sizeof(float));
    cudaMalloc((void **)&d_mean, NCOLS * sizeof(float));
    cudaMemcpy(d_m, h_m, count * sizeof(float), cudaMemcpyHostToDevice);

    int grid = (NCOLS + BLOCK_SIZE - 1) / BLOCK_SIZE;
    column_mean<<<grid, BLOCK_SIZE>>>(d_m, d_mean, NROWS, NCOLS);

    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) {
        printf("launch failed: %s\n", cudaGetErrorString(err));
        return 1;
    }
    err = cudaDeviceSynchronize();
    if (err != cudaSuccess) {
        printf("kernel failed: %s\n", cudaGetErrorString(err));
        return 1;
    }

    cudaMemcpy(h_mean, d_mean, NCOLS * sizeof(float), cudaMemcpyDeviceToHost);

    double sum = 0.0, weighted = 0.0;
    for (int c = 0; c < NCOLS; c++) {
        sum += h_mean[c];
        weighted += h_mean[c] * (double)(c % 17);
    }
    printf("column means of %d x %d\n", NROWS, NCOLS);
    printf("mean[0]=%f mean[%d]=%f\n", h_mean[0], NCOLS - 1, h_mean[NCOLS - 1]);
    printf("checksum %.6f weighted %.6f\n", sum, weighted);

    cudaFree(d_m);
    cudaFree(d_mean);
    free(h_m);
    free(h_mean);
    return 0;
}
