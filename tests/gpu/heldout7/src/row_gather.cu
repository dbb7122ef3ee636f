// Permute the rows of a 65536 x 1024 matrix by an index array:
// out[r][:] = in[perm[r]][:]. Grid-stride loop over all elements with
// size_t indices, fixed grid of 4096 blocks of 256 threads.
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

__global__ void gather_rows(const float* __restrict__ in, const int* __restrict__ perm,
                            float* __restrict__ out, size_t rows, size_t cols)
{
    size_t total = rows * cols;
    size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += stride) {
        size_t r = i / cols;
        size_t c = i % cols;
        const float* src = in + (size_t)perm[r] * cols;
        out[i] = src[c];
    }
}

int main(void)
{
    const size_t rows = 65536, cols = 1024;
    const size_t n = rows * cols;

    float* h_in = (float*)malloc(n * sizeof(float));
    float* h_out = (float*)malloc(n * sizeof(float));
    int* h_perm = (int*)malloc(rows * sizeof(int));
    for (size_t i = 0; i < n; i++)
        h_in[i] = (float)(i % 1000003) * 0.5f;
    for (size_t r = 0; r < rows; r++)   /* odd multiplier: a bijection mod 2^16 */
        h_perm[r] = (int)((r * 40503u + 17u) % rows);

    float *d_in, *d_out;
    int* d_perm;
    if (cudaMalloc(&d_in, n * sizeof(float)) != cudaSuccess ||
        cudaMalloc(&d_out, n * sizeof(float)) != cudaSuccess ||
        cudaMalloc(&d_perm, rows * sizeof(int)) != cudaSuccess) {
        fprintf(stderr, "cudaMalloc failed\n");
        return 1;
    }
    if (cudaMemcpy(d_in, h_in, n * sizeof(float), cudaMemcpyHostToDevice) != cudaSuccess ||
        cudaMemcpy(d_perm, h_perm, rows * sizeof(int), cudaMemcpyHostToDevice) != cudaSuccess) {
        fprintf(stderr, "cudaMemcpy to device failed\n");
        return 1;
    }

    gather_rows<<<4096, 256>>>(d_in, d_perm, d_out, rows, cols);
    if (cudaGetLastError() != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess) {
        fprintf(stderr, "kernel failed\n");
        return 1;
    }
    if (cudaMemcpy(h_out, d_out, n * sizeof(float), cudaMemcpyDeviceToHost) != cudaSuccess) {
        fprintf(stderr, "cudaMemcpy to host failed\n");
        return 1;
    }

    double checksum = 0.0;
    long bad = 0;
    for (size_t r = 0; r < rows; r++)
        for (size_t c = 0; c < cols; c++) {
            float v = h_out[r * cols + c];
            checksum += (double)v * (double)((r % 7) + 1);
            if (v != h_in[(size_t)h_perm[r] * cols + c]) bad++;
        }
    printf("gathered %zu rows, checksum %.2f\n", rows, checksum);
    printf("host check: %s\n", bad == 0 ? "match" : "MISMATCH");

    cudaFree(d_in); cudaFree(d_out); cudaFree(d_perm);
    free(h_in); free(h_out); free(h_perm);
    return 0;
}
