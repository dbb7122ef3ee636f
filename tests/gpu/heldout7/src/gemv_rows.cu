// y = A x + b with one thread per row of a row-major A (16384 x 4096).
// Values are multiples of 1/8 and 1/4, so every dot product is exact.
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define N_ROWS 16384
#define N_COLS 4096

__global__ void gemv_rows(const float* A, const float* x, const float* b, float* y,
                          int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) {
        const float* row = A + (size_t)r * cols;
        float acc = b[r];
        for (int c = 0; c < cols; c++)
            acc += row[c] * x[c];
        y[r] = acc;
    }
}

int main(void)
{
    int rows = N_ROWS, cols = N_COLS;
    size_t nA = (size_t)rows * cols;

    float* hA = (float*)malloc(nA * sizeof(float));
    float* hx = (float*)malloc(cols * sizeof(float));
    float* hb = (float*)malloc(rows * sizeof(float));
    float* hy = (float*)malloc(rows * sizeof(float));
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++)
            hA[(size_t)r * cols + c] = (float)((r + 3 * c) % 17 - 8) * 0.125f;
    for (int c = 0; c < cols; c++) hx[c] = (float)((c * 5) % 9 - 4) * 0.25f;
    for (int r = 0; r < rows; r++) hb[r] = (float)(r % 3 - 1);

    float *dA, *dx, *db, *dy;
    cudaMalloc((void**)&dA, nA * sizeof(float));
    cudaMalloc((void**)&dx, cols * sizeof(float));
    cudaMalloc((void**)&db, rows * sizeof(float));
    cudaMalloc((void**)&dy, rows * sizeof(float));
    cudaMemcpy(dA, hA, nA * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dx, hx, cols * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(db, hb, rows * sizeof(float), cudaMemcpyHostToDevice);

    int threads = 256;
    int blocks = (rows + threads - 1) / threads;
    gemv_rows<<<blocks, threads>>>(dA, dx, db, dy, rows, cols);
    cudaError_t err = cudaDeviceSynchronize();
    if (err != cudaSuccess) {
        fprintf(stderr, "kernel failed: %s\n", cudaGetErrorString(err));
        return 1;
    }
    cudaMemcpy(hy, dy, rows * sizeof(float), cudaMemcpyDeviceToHost);

    double checksum = 0.0;
    for (int r = 0; r < rows; r++) checksum += (double)hy[r] * ((r % 5) + 1);

    int bad = 0;
    for (int r = 0; r < rows; r += 256) {
        float ref = hb[r];
        for (int c = 0; c < cols; c++) ref += hA[(size_t)r * cols + c] * hx[c];
        if (ref != hy[r]) bad++;
    }
    printf("gemv %d x %d checksum %.4f y[0] %.4f\n", rows, cols, checksum, hy[0]);
    printf("spot check: %s\n", bad == 0 ? "match" : "MISMATCH");

    cudaFree(dA); cudaFree(dx); cudaFree(db); cudaFree(dy);
    free(hA); free(hx); free(hb); free(hy);
    return 0;
}
