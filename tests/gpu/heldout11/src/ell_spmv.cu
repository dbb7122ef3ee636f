// Sparse matrix-vector product y = A x with A in ELLPACK format stored row by
// row: every row has WIDTH slots (column index and value), unused slots hold
// column -1.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

static void check(cudaError_t e, const char* what)
{
    if (e != cudaSuccess) {
        fprintf(stderr, "%s failed: %s\n", what, cudaGetErrorString(e));
        exit(EXIT_FAILURE);
    }
}

__global__ void ell_spmv(int num_rows, int width, const int* col_idx,
                         const float* values, const float* x, float* y)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= num_rows) return;

    const int* cols = col_idx + (size_t)row * width;
    const float* vals = values + (size_t)row * width;
    float sum = 0.0f;
    for (int k = 0; k < width; ++k) {
        int c = cols[k];
        if (c >= 0)
            sum += vals[k] * x[c];
    }
    y[row] = sum;
}

static unsigned int mix(unsigned int v)
{
    v ^= v >> 16;
    v *= 0x7feb352du;
    v ^= v >> 15;
    v *= 0x846ca68bu;
    v ^= v >> 16;
    return v;
}

int main()
{
    const int rows = 1 << 22;    // 4M rows, square matrix
    const int width = 16;        // ELL slots per row
    const size_t slots = (size_t)rows * width;

    std::vector<int> h_cols(slots);
    std::vector<float> h_vals(slots);
    std::vector<float> h_x(rows), h_y(rows);

    size_t nnz = 0;
    for (int r = 0; r < rows; ++r) {
        unsigned int h = mix((unsigned int)r);
        int count = 8 + (int)(h % 9u);            // 8..16 non-zeros
        for (int k = 0; k < width; ++k) {
            size_t s = (size_t)r * width + k;
            if (k < count) {
                long long off = (long long)(k - count / 2) * 257 + (long long)(mix(h + k) % 64u);
                long long c = ((long long)r + off) % rows;
                if (c < 0) c += rows;
                h_cols[s] = (int)c;
                h_vals[s] = (float)((int)(mix(h ^ (unsigned int)(k * 977)) % 33u) - 16) / 8.0f;
                ++nnz;
            } else {
                h_cols[s] = -1;
                h_vals[s] = 0.0f;
            }
        }
    }
    for (int i = 0; i < rows; ++i)
        h_x[i] = (float)(i % 251) / 125.0f - 1.0f;

    int* d_cols;
    float *d_vals, *d_x, *d_y;
    check(cudaMalloc(&d_cols, slots * sizeof(int)), "cudaMalloc cols");
    check(cudaMalloc(&d_vals, slots * sizeof(float)), "cudaMalloc vals");
    check(cudaMalloc(&d_x, rows * sizeof(float)), "cudaMalloc x");
    check(cudaMalloc(&d_y, rows * sizeof(float)), "cudaMalloc y");
    check(cudaMemcpy(d_cols, h_cols.data(), slots * sizeof(int), cudaMemcpyHostToDevice), "copy cols");
    check(cudaMemcpy(d_vals, h_vals.data(), slots * sizeof(float), cudaMemcpyHostToDevice), "copy vals");
    check(cudaMemcpy(d_x, h_x.data(), rows * sizeof(float), cudaMemcpyHostToDevice), "copy x");

    int block = 128;
    int grid = (rows + block - 1) / block;
    ell_spmv<<<grid, block>>>(rows, width, d_cols, d_vals, d_x, d_y);
    check(cudaGetLastError(), "ell_spmv launch");
    check(cudaDeviceSynchronize(), "ell_spmv");

    check(cudaMemcpy(h_y.data(), d_y, rows * sizeof(float), cudaMemcpyDeviceToHost), "copy y");

    double sum = 0.0, wsum = 0.0;
    for (int i = 0; i < rows; ++i) {
        sum += h_y[i];
        wsum += h_y[i] * (double)(i % 17 + 1);
    }
    printf("ell_spmv: rows %d, nnz %zu, sum %.6f, weighted %.6f\n", rows, nnz, sum, wsum);

    cudaFree(d_cols);
    cudaFree(d_vals);
    cudaFree(d_x);
    cudaFree(d_y);
    return 0;
}
