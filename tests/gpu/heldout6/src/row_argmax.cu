// Top-1 per row: index and value of the largest score in every row (first one wins ties).
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

static const int kRows = 16384;
static const int kCols = 2048;

#define CUDA_OK(stmt)                                                         \
    do {                                                                      \
        cudaError_t e_ = (stmt);                                              \
        if (e_ != cudaSuccess) {                                              \
            fprintf(stderr, "%s failed: %s\n", #stmt, cudaGetErrorString(e_)); \
            return EXIT_FAILURE;                                              \
        }                                                                     \
    } while (0)

__device__ int argmax_of(const float *row, int n, float *best_val)
{
    int best = 0;
    float bv = row[0];
    for (int j = 1; j < n; ++j) {
        float v = row[j];
        if (v > bv) {
            bv = v;
            best = j;
        }
    }
    *best_val = bv;
    return best;
}

__global__ void row_argmax(const float *scores, int *best_idx, float *best_val,
                           unsigned int rows, unsigned int cols)
{
    unsigned int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) {
        const float *row = scores + (size_t)r * cols;
        float v;
        best_idx[r] = argmax_of(row, (int)cols, &v);
        best_val[r] = v;
    }
}

int main()
{
    size_t n = (size_t)kRows * kCols;
    float *h_scores = (float *)malloc(n * sizeof(float));
    int *h_idx = (int *)malloc(kRows * sizeof(int));
    float *h_val = (float *)malloc(kRows * sizeof(float));
    for (int r = 0; r < kRows; ++r)
        for (int c = 0; c < kCols; ++c)
            h_scores[(size_t)r * kCols + c] =
                sinf(r * 0.5f + c * 0.013f) + (float)((c * 131 + r * 17) % 4099) * 1e-4f;

    float *d_scores, *d_val;
    int *d_idx;
    CUDA_OK(cudaMalloc(&d_scores, n * sizeof(float)));
    CUDA_OK(cudaMalloc(&d_idx, kRows * sizeof(int)));
    CUDA_OK(cudaMalloc(&d_val, kRows * sizeof(float)));
    CUDA_OK(cudaMemcpy(d_scores, h_scores, n * sizeof(float), cudaMemcpyHostToDevice));

    const int tpb = 128;
    row_argmax<<<(kRows + tpb - 1) / tpb, tpb>>>(d_scores, d_idx, d_val, kRows, kCols);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaDeviceSynchronize());

    CUDA_OK(cudaMemcpy(h_idx, d_idx, kRows * sizeof(int), cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(h_val, d_val, kRows * sizeof(float), cudaMemcpyDeviceToHost));

    // host check of every 64th row
    int bad = 0;
    for (int r = 0; r < kRows; r += 64) {
        const float *row = h_scores + (size_t)r * kCols;
        int b = 0;
        for (int c = 1; c < kCols; ++c)
            if (row[c] > row[b]) b = c;
        if (b != h_idx[r] || row[b] != h_val[r]) ++bad;
    }
    long long idx_sum = 0;
    double val_sum = 0.0;
    for (int r = 0; r < kRows; ++r) {
        idx_sum += h_idx[r];
        val_sum += h_val[r];
    }
    printf("row argmax over %d x %d\n", kRows, kCols);
    printf("sum of indices %lld, sum of maxima %.6f, %d bad rows in check\n", idx_sum, val_sum, bad);

    cudaFree(d_scores);
    cudaFree(d_idx);
    cudaFree(d_val);
    free(h_scores);
    free(h_idx);
    free(h_val);
    return bad ? EXIT_FAILURE : EXIT_SUCCESS;
}
