// Row-wise L2 normalisation: out[r][:] = in[r][:] / sqrt(sum(in[r][:]^2) + eps).
// One thread per row: a sum-of-squares pass, then a scaling pass.
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

#define ROWS 8192
#define COLS 2048
#define EPS 1e-12f

#define CHECK(call)                                                             \
    do {                                                                        \
        cudaError_t status = call;                                              \
        if (status != cudaSuccess) {                                            \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                  \
                    cudaGetErrorString(status));                                \
            exit(1);                                                            \
        }                                                                       \
    } while (0)

__device__ float row_sum_sq(const float* row, int n)
{
    float s = 0.0f;
    for (int i = 0; i < n; i++)
        s += row[i] * row[i];
    return s;
}

__global__ void l2_normalize_rows(float* out, const float* in, int rows, int cols, float eps)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) {
        const float* src = in + (size_t)r * cols;
        float* dst = out + (size_t)r * cols;
        float inv = 1.0f / sqrtf(row_sum_sq(src, cols) + eps);
        for (int c = 0; c < cols; c++)
            dst[c] = src[c] * inv;
    }
}

int main(int argc, char** argv)
{
    int rows = ROWS, cols = COLS;
    if (argc > 1) rows = atoi(argv[1]);
    if (argc > 2) cols = atoi(argv[2]);
    size_t count = (size_t)rows * cols;
    size_t bytes = count * sizeof(float);
    printf("l2_normalize_rows %d x %d\n", rows, cols);

    float* h_in = (float*)malloc(bytes);
    float* h_out = (float*)malloc(bytes);
    for (size_t i = 0; i < count; i++)
        h_in[i] = (float)((int)(i % 101) - 50) * 0.02f + 0.001f * (float)(i / cols % 7);

    float *d_in, *d_out;
    CHECK(cudaMalloc(&d_in, bytes));
    CHECK(cudaMalloc(&d_out, bytes));
    CHECK(cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice));

    dim3 block(128);
    dim3 grid((rows + block.x - 1) / block.x);
    l2_normalize_rows<<<grid, block>>>(d_out, d_in, rows, cols, EPS);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost));

    double total = 0.0, sq = 0.0;
    for (size_t i = 0; i < count; i++) {
        total += h_out[i] * (double)((i % 5) + 1);
        sq += (double)h_out[i] * h_out[i];
    }
    printf("checksum: %.6f  sum_sq=%.6f (expect ~%d)\n", total, sq, rows);

    cudaFree(d_in);
    cudaFree(d_out);
    free(h_in);
    free(h_out);
    return 0;
}
