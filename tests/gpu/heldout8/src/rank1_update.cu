// Rank-1 update of a matrix: out = X + alpha * u v^T
// (u broadcast along each row, v broadcast down each column).
#include <stdio.h>
#include <stdlib.h>

struct Shape {
    int rows;
    int cols;
};

static void check(cudaError_t err, const char* what)
{
    if (err != cudaSuccess) {
        fprintf(stderr, "%s failed: %s\n", what, cudaGetErrorString(err));
        exit(EXIT_FAILURE);
    }
}

__global__ void rank1_update(Shape s, float alpha,
                             const float* __restrict__ x,
                             const float* __restrict__ u,
                             const float* __restrict__ v,
                             float* __restrict__ out)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < s.rows && col < s.cols) {
        size_t i = (size_t)row * s.cols + col;
        out[i] = x[i] + alpha * u[row] * v[col];
    }
}

int main(void)
{
    Shape s;
    s.rows = 8192;
    s.cols = 8192;
    const float alpha = 2.0f;
    size_t n = (size_t)s.rows * s.cols;

    float* h_x = (float*)malloc(n * sizeof(float));
    float* h_u = (float*)malloc(s.rows * sizeof(float));
    float* h_v = (float*)malloc(s.cols * sizeof(float));
    float* h_out = (float*)malloc(n * sizeof(float));
    if (!h_x || !h_u || !h_v || !h_out) {
        fprintf(stderr, "host allocation failed\n");
        return 1;
    }

    for (size_t i = 0; i < n; i++)
        h_x[i] = (float)((int)(i % 13) - 6) * 0.5f;
    for (int r = 0; r < s.rows; r++)
        h_u[r] = (float)(r % 7) * 0.25f - 1.0f;
    for (int c = 0; c < s.cols; c++)
        h_v[c] = (float)(c % 5) * 0.5f;

    float *d_x, *d_u, *d_v, *d_out;
    check(cudaMalloc((void**)&d_x, n * sizeof(float)), "cudaMalloc x");
    check(cudaMalloc((void**)&d_u, s.rows * sizeof(float)), "cudaMalloc u");
    check(cudaMalloc((void**)&d_v, s.cols * sizeof(float)), "cudaMalloc v");
    check(cudaMalloc((void**)&d_out, n * sizeof(float)), "cudaMalloc out");

    check(cudaMemcpy(d_x, h_x, n * sizeof(float), cudaMemcpyHostToDevice), "copy x");
    check(cudaMemcpy(d_u, h_u, s.rows * sizeof(float), cudaMemcpyHostToDevice), "copy u");
    check(cudaMemcpy(d_v, h_v, s.cols * sizeof(float), cudaMemcpyHostToDevice), "copy v");

    dim3 block(32, 8);
    dim3 grid((s.cols + block.x - 1) / block.x, (s.rows + block.y - 1) / block.y);
    rank1_update<<<grid, block>>>(s, alpha, d_x, d_u, d_v, d_out);
    check(cudaGetLastError(), "kernel launch");
    check(cudaDeviceSynchronize(), "kernel execution");

    check(cudaMemcpy(h_out, d_out, n * sizeof(float), cudaMemcpyDeviceToHost), "copy out");

    // all values are small multiples of 1/8, so the result is exact
    long errors = 0;
    double checksum = 0.0;
    for (int r = 0; r < s.rows; r++) {
        for (int c = 0; c < s.cols; c++) {
            size_t i = (size_t)r * s.cols + c;
            float ref = h_x[i] + alpha * h_u[r] * h_v[c];
            if (h_out[i] != ref) {
                if (errors < 10)
                    printf("mismatch at (%d, %d): got %f expected %f\n", r, c, h_out[i], ref);
                errors++;
            }
            checksum += h_out[i];
        }
    }
    printf("checksum = %.3f\n", checksum);

    cudaFree(d_x);
    cudaFree(d_u);
    cudaFree(d_v);
    cudaFree(d_out);
    free(h_x);
    free(h_u);
    free(h_v);
    free(h_out);

    if (errors) {
        printf("%ld mismatches\n", errors);
        return 1;
    }
    printf("OK\n");
    return 0;
}
