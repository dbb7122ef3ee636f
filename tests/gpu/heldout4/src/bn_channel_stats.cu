// Batch-norm statistics: per-channel mean and (biased) variance of an
// activation tensor stored as [rows][cols], rows = N*H*W, cols = channels.
// One thread per channel, two passes down its column.
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

static void check(cudaError_t e, const char* what)
{
    if (e != cudaSuccess) {
        fprintf(stderr, "%s failed: %s\n", what, cudaGetErrorString(e));
        exit(EXIT_FAILURE);
    }
}

__global__ void channel_stats(int rows, int cols,
                              const float* __restrict__ x,
                              float* __restrict__ mean,
                              float* __restrict__ var)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols)
        return;

    float s = 0.0f;
    for (int r = 0; r < rows; ++r)
        s += x[(size_t)r * cols + c];
    float m = s / (float)rows;

    float v = 0.0f;
    for (int r = 0; r < rows; ++r) {
        float d = x[(size_t)r * cols + c] - m;
        v += d * d;
    }
    mean[c] = m;
    var[c] = v / (float)rows;
}

int main(int argc, char** argv)
{
    // N=32 images of 16x16 pixels, 2048 channels
    int rows = 32 * 16 * 16;
    int cols = 2048;
    if (argc > 1) rows = atoi(argv[1]);
    if (argc > 2) cols = atoi(argv[2]);
    size_t n = (size_t)rows * cols;
    printf("channel_stats: rows=%d cols=%d (%zu elements)\n", rows, cols, n);

    float* h_x = (float*)malloc(n * sizeof(float));
    float* h_mean = (float*)malloc(cols * sizeof(float));
    float* h_var = (float*)malloc(cols * sizeof(float));
    for (size_t i = 0; i < n; ++i) {
        size_t r = i / cols, c = i % cols;
        h_x[i] = 0.5f * sinf(0.001f * (float)r + 0.37f * (float)c)
               + 0.01f * (float)(c % 17);
    }

    float *d_x, *d_mean, *d_var;
    check(cudaMalloc(&d_x, n * sizeof(float)), "cudaMalloc x");
    check(cudaMalloc(&d_mean, cols * sizeof(float)), "cudaMalloc mean");
    check(cudaMalloc(&d_var, cols * sizeof(float)), "cudaMalloc var");
    check(cudaMemcpy(d_x, h_x, n * sizeof(float), cudaMemcpyHostToDevice), "copy x");

    const int block = 128;
    const int grid = (cols + block - 1) / block;
    channel_stats<<<grid, block>>>(rows, cols, d_x, d_mean, d_var);
    check(cudaGetLastError(), "launch");
    check(cudaDeviceSynchronize(), "sync");

    check(cudaMemcpy(h_mean, d_mean, cols * sizeof(float), cudaMemcpyDeviceToHost), "copy mean");
    check(cudaMemcpy(h_var, d_var, cols * sizeof(float), cudaMemcpyDeviceToHost), "copy var");

    double sm = 0.0, sv = 0.0;
    for (int c = 0; c < cols; ++c) {
        sm += h_mean[c];
        sv += h_var[c];
    }
    printf("checksum mean=%.6f var=%.6f (mean[1]=%.6f var[1]=%.6f)\n",
           sm, sv, h_mean[1 % cols], h_var[1 % cols]);

    cudaFree(d_x);
    cudaFree(d_mean);
    cudaFree(d_var);
    free(h_x);
    free(h_mean);
    free(h_var);
    return 0;
}
