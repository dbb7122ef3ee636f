// Sparse matrix-vector product y = A x with A in CSR format
// (row_ptr / col_idx / vals), scalar kernel: one thread per row.
#include <stdio.h>
#include <stdlib.h>

#define CUDA_CHECK(call)                                                  \
    do {                                                                  \
        cudaError_t status = (call);                                      \
        if (status != cudaSuccess) {                                      \
            fprintf(stderr, "CUDA error at line %d: %s\n", __LINE__,      \
                    cudaGetErrorString(status));                          \
            exit(EXIT_FAILURE);                                           \
        }                                                                 \
    } while (0)

__global__ void spmv_csr(int num_rows, const int* __restrict__ row_ptr, const int* __restrict__ col_idx,
                         const float* __restrict__ vals, const float* x, float* y)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= num_rows) return;

    float dot = 0.0f;
    int start = row_ptr[row];
    int end = row_ptr[row + 1];
    for (int jj = start; jj < end; jj++)
        dot += vals[jj] * x[col_idx[jj]];
    y[row] = dot;
}

int main(void)
{
    const int num_rows = 1 << 21;
    const int num_cols = 1 << 21;

    // between 8 and 56 non-zeros per row (32 on average)
    int* h_row_ptr = (int*)malloc((num_rows + 1) * sizeof(int));
    h_row_ptr[0] = 0;
    for (int r = 0; r < num_rows; r++)
        h_row_ptr[r + 1] = h_row_ptr[r] + 8 + (r % 49);
    const int nnz = h_row_ptr[num_rows];

    int* h_col = (int*)malloc((size_t)nnz * sizeof(int));
    float* h_vals = (float*)malloc((size_t)nnz * sizeof(float));
    float* h_x = (float*)malloc(num_cols * sizeof(float));
    float* h_y = (float*)malloc(num_rows * sizeof(float));

    for (int r = 0; r < num_rows; r++) {
        int len = h_row_ptr[r + 1] - h_row_ptr[r];
        for (int j = 0; j < len; j++) {
            int k = h_row_ptr[r] + j;
            // a band around the diagonal with a spacing of 131 columns
            long long c = (long long)r + (long long)(j - len / 2) * 131;
            c %= num_cols;
            if (c < 0) c += num_cols;
            h_col[k] = (int)c;
            h_vals[k] = (float)((r + j) % 5 - 2) * 0.5f;
        }
    }
    for (int i = 0; i < num_cols; i++)
        h_x[i] = (float)(i % 9) * 0.25f - 1.0f;

    printf("rows = %d, nnz = %d\n", num_rows, nnz);

    int *d_row_ptr, *d_col;
    float *d_vals, *d_x, *d_y;
    CUDA_CHECK(cudaMalloc((void**)&d_row_ptr, (num_rows + 1) * sizeof(int)));
    CUDA_CHECK(cudaMalloc((void**)&d_col, (size_t)nnz * sizeof(int)));
    CUDA_CHECK(cudaMalloc((void**)&d_vals, (size_t)nnz * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void**)&d_x, num_cols * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void**)&d_y, num_rows * sizeof(float)));

    CUDA_CHECK(cudaMemcpy(d_row_ptr, h_row_ptr, (num_rows + 1) * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_col, h_col, (size_t)nnz * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_vals, h_vals, (size_t)nnz * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_x, h_x, num_cols * sizeof(float), cudaMemcpyHostToDevice));

    int block = 128;
    int grid = (num_rows + block - 1) / block;
    spmv_csr<<<grid, block>>>(num_rows, d_row_ptr, d_col, d_vals, d_x, d_y);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());

    CUDA_CHECK(cudaMemcpy(h_y, d_y, num_rows * sizeof(float), cudaMemcpyDeviceToHost));

    // values are multiples of 1/2 and 1/4, so the products and row sums are
    // exact and the comparison is exact for every row
    int errors = 0;
    double checksum = 0.0;
    for (int r = 0; r < num_rows; r++) {
        float ref = 0.0f;
        for (int k = h_row_ptr[r]; k < h_row_ptr[r + 1]; k++)
            ref += h_vals[k] * h_x[h_col[k]];
        if (h_y[r] != ref) {
            if (errors < 10)
                printf("mismatch in row %d: got %f expected %f\n", r, h_y[r], ref);
            errors++;
        }
        checksum += h_y[r];
    }
    printf("checksum = %.3f\n", checksum);

    cudaFree(d_row_ptr);
    cudaFree(d_col);
    cudaFree(d_vals);
    cudaFree(d_x);
    cudaFree(d_y);
    free(h_row_ptr);
    free(h_col);
    free(h_vals);
    free(h_x);
    free(h_y);

    if (errors) {
        printf("FAILED: %d rows differ\n", errors);
        return 1;
    }
    printf("OK\n");
    return 0;
}
