// Symmetric per-row int8 quantisation of a 32768 x 4096 weight matrix in
// two launches: first the per-row scale absmax / 127, then the quantised
// values round(x / scale) clamped to [-127, 127].
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cuda_runtime.h>

#define QMAX 127.0f

#define CUDA_CHECK(x)                                                           \
    do {                                                                        \
        cudaError_t e = (x);                                                    \
        if (e != cudaSuccess) {                                                 \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                  \
                    cudaGetErrorString(e));                                     \
            exit(1);                                                            \
        }                                                                       \
    } while (0)

__global__ void row_absmax_scale(const float* x, float* scales, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) {
        const float* row = x + (size_t)r * cols;
        float m = 0.0f;
        for (int c = 0; c < cols; ++c)
            m = fmaxf(m, fabsf(row[c]));
        scales[r] = m > 0.0f ? m / QMAX : 1.0f;
    }
}

__global__ void quantize_rows(const float* x, const float* scales, int8_t* q,
                              unsigned int rows, unsigned int cols)
{
    unsigned int c = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols) {
        size_t idx = (size_t)r * cols + c;
        float v = rintf(x[idx] / scales[r]);
        v = fminf(fmaxf(v, -QMAX), QMAX);
        q[idx] = (int8_t)v;
    }
}

int main()
{
    const int rows = 32768, cols = 4096;
    const size_t n = (size_t)rows * cols;

    float* h_x = (float*)malloc(n * sizeof(float));
    int8_t* h_q = (int8_t*)malloc(n);
    float* h_s = (float*)malloc(rows * sizeof(float));
    if (!h_x || !h_q || !h_s) return 1;

    for (int r = 0; r < rows; ++r) {
        float amp = 0.25f + (float)(r % 29) * 0.125f;   // rows differ in range
        for (int c = 0; c < cols; ++c) {
            unsigned int h = (unsigned int)(r * 4096 + c) * 0x9E3779B1u;
            h ^= h >> 16;
            h_x[(size_t)r * cols + c] = amp * ((float)(h % 2001u) / 1000.0f - 1.0f);
        }
    }

    float *d_x, *d_s;
    int8_t* d_q;
    CUDA_CHECK(cudaMalloc(&d_x, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_s, rows * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_q, n));
    CUDA_CHECK(cudaMemcpy(d_x, h_x, n * sizeof(float), cudaMemcpyHostToDevice));

    row_absmax_scale<<<(rows + 255) / 256, 256>>>(d_x, d_s, rows, cols);
    CUDA_CHECK(cudaGetLastError());

    dim3 block(32, 8);
    dim3 grid((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
    quantize_rows<<<grid, block>>>(d_x, d_s, d_q, rows, cols);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());

    CUDA_CHECK(cudaMemcpy(h_q, d_q, n, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(h_s, d_s, rows * sizeof(float), cudaMemcpyDeviceToHost));

    long long qsum = 0, qabs = 0;
    for (size_t i = 0; i < n; ++i) {
        qsum += h_q[i] * (long long)(i % 5 + 1);
        qabs += h_q[i] < 0 ? -h_q[i] : h_q[i];
    }
    double ssum = 0.0;
    for (int r = 0; r < rows; ++r) ssum += h_s[r];
    printf("rowquant: q weighted sum %lld, |q| sum %lld, scale sum %.6f\n", qsum, qabs, ssum);

    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFree(d_s));
    CUDA_CHECK(cudaFree(d_q));
    free(h_x);
    free(h_q);
    free(h_s);
    return 0;
}
