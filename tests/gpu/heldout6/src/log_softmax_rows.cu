// Row-wise log-softmax over a batch of logits: out[r][j] = x[r][j] - logsumexp(x[r][:]).
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                       \
    do {                                                                       \
        cudaError_t err_ = (call);                                             \
        if (err_ != cudaSuccess) {                                             \
            fprintf(stderr, "CUDA error '%s' at %s:%d\n",                      \
                    cudaGetErrorString(err_), __FILE__, __LINE__);             \
            exit(EXIT_FAILURE);                                                \
        }                                                                      \
    } while (0)

// one thread handles one whole row
__global__ void log_softmax_rows(const float* __restrict__ in, float* __restrict__ out,
                                 int rows, int cols)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;

    const float* x = in + (size_t)row * cols;
    float* y = out + (size_t)row * cols;

    float m = -INFINITY;
    for (int j = 0; j < cols; ++j)
        m = fmaxf(m, x[j]);

    float s = 0.0f;
    for (int j = 0; j < cols; ++j)
        s += expf(x[j] - m);

    float lse = m + logf(s);
    for (int j = 0; j < cols; ++j)
        y[j] = x[j] - lse;
}

int main()
{
    const int rows = 16384;
    const int cols = 2048;
    const size_t n = (size_t)rows * cols;
    const size_t bytes = n * sizeof(float);

    float* h_in = (float*)malloc(bytes);
    float* h_out = (float*)malloc(bytes);
    if (!h_in || !h_out) {
        fprintf(stderr, "host allocation failed\n");
        return 1;
    }
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c)
            h_in[(size_t)r * cols + c] = 4.0f * sinf(0.37f * c + 0.011f * r) + 0.001f * (c % 97);

    float *d_in, *d_out;
    CUDA_CHECK(cudaMalloc(&d_in, bytes));
    CUDA_CHECK(cudaMalloc(&d_out, bytes));
    CUDA_CHECK(cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice));

    int threads = 256;
    int blocks = (rows + threads - 1) / threads;
    log_softmax_rows<<<blocks, threads>>>(d_in, d_out, rows, cols);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());

    CUDA_CHECK(cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost));

    double checksum = 0.0;
    for (size_t i = 0; i < n; ++i)
        checksum += h_out[i];
    double row0 = 0.0;
    for (int c = 0; c < cols; ++c)
        row0 += exp((double)h_out[c]);
    printf("log_softmax %d x %d\n", rows, cols);
    printf("checksum = %.6f\n", checksum);
    printf("sum(exp(row 0)) = %.6f (expect 1)\n", row0);

    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
    free(h_in);
    free(h_out);
    return 0;
}
