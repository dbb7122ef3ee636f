// Per-row dot product of two 16384 x 2048 row-major matrices:
// out[r] = sum_c A[r][c] * B[r][c], one thread per row.
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <cuda_runtime.h>

static void check(cudaError_t e, const char* what)
{
    if (e != cudaSuccess) {
        fprintf(stderr, "%s failed: %s\n", what, cudaGetErrorString(e));
        exit(EXIT_FAILURE);
    }
}

__global__ void row_dot(float* out, const float* A, const float* B, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) {
        const float* a = A + (size_t)r * cols;
        const float* b = B + (size_t)r * cols;
        float s = 0.f;
        for (int c = 0; c < cols; c++)
            s += a[c] * b[c];
        out[r] = s;
    }
}

int main()
{
    const int rows = 16384, cols = 2048;
    const size_t n = (size_t)rows * cols;

    std::vector<float> A(n), B(n), out(rows);
    for (int r = 0; r < rows; r++) {
        for (int c = 0; c < cols; c++) {
            A[(size_t)r * cols + c] = sinf(0.001f * c + 0.01f * r);
            B[(size_t)r * cols + c] = cosf(0.002f * c - 0.003f * r);
        }
    }

    float *dA, *dB, *dOut;
    check(cudaMalloc(&dA, n * sizeof(float)), "cudaMalloc A");
    check(cudaMalloc(&dB, n * sizeof(float)), "cudaMalloc B");
    check(cudaMalloc(&dOut, rows * sizeof(float)), "cudaMalloc out");
    check(cudaMemcpy(dA, A.data(), n * sizeof(float), cudaMemcpyHostToDevice), "copy A");
    check(cudaMemcpy(dB, B.data(), n * sizeof(float), cudaMemcpyHostToDevice), "copy B");

    dim3 block(64);
    dim3 grid((rows + block.x - 1) / block.x);
    row_dot<<<grid, block>>>(dOut, dA, dB, rows, cols);
    check(cudaGetLastError(), "launch");
    check(cudaDeviceSynchronize(), "sync");

    check(cudaMemcpy(out.data(), dOut, rows * sizeof(float), cudaMemcpyDeviceToHost), "copy out");
    double total = 0.0;
    for (int r = 0; r < rows; r++)
        total += out[r];
    printf("row_dot checksum %.5f first %.5f last %.5f\n", total, out[0], out[rows - 1]);

    cudaFree(dA);
    cudaFree(dB);
    cudaFree(dOut);
    return 0;
}
