// Min-max scaling of every row of a matrix to [0, 1]: thread per row,
// first pass finds the row's min and max, second pass writes the scaled row.
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

#define CHECK(call)                                                          \
    do {                                                                     \
        cudaError_t err_ = (call);                                           \
        if (err_ != cudaSuccess) {                                           \
            fprintf(stderr, "CUDA error %s at %s:%d\n",                      \
                    cudaGetErrorString(err_), __FILE__, __LINE__);           \
            exit(1);                                                         \
        }                                                                    \
    } while (0)

__global__ void minmax_scale_rows(const float* __restrict__ x, float* __restrict__ y,
                                  int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;

    const float* row = x + (size_t)r * cols;
    float* out = y + (size_t)r * cols;

    float mn = row[0];
    float mx = row[0];
    for (int c = 1; c < cols; ++c) {
        float v = row[c];
        mn = fminf(mn, v);
        mx = fmaxf(mx, v);
    }
    float range = mx - mn;
    float inv = range > 0.0f ? 1.0f / range : 0.0f;
    for (int c = 0; c < cols; ++c)
        out[c] = (row[c] - mn) * inv;
}

static float input_value(int r, int c)
{
    return (float)((r * 37 + c * 101) % 1999) * 0.001f - 1.0f + (float)(r % 13) * 0.5f;
}

int main()
{
    const int rows = 16384;
    const int cols = 2048;
    const size_t n = (size_t)rows * cols;
    const size_t bytes = n * sizeof(float);

    float* h_x = (float*)malloc(bytes);
    float* h_y = (float*)malloc(bytes);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c)
            h_x[(size_t)r * cols + c] = input_value(r, c);

    float *d_x, *d_y;
    CHECK(cudaMalloc(&d_x, bytes));
    CHECK(cudaMalloc(&d_y, bytes));
    CHECK(cudaMemcpy(d_x, h_x, bytes, cudaMemcpyHostToDevice));

    int threads = 128;
    int blocks = (rows + threads - 1) / threads;
    minmax_scale_rows<<<blocks, threads>>>(d_x, d_y, rows, cols);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());

    CHECK(cudaMemcpy(h_y, d_y, bytes, cudaMemcpyDeviceToHost));

    double checksum = 0.0;
    for (size_t i = 0; i < n; ++i) checksum += h_y[i];

    int bad = 0;
    for (int r = 0; r < rows; r += 1024) {
        const float* row = h_x + (size_t)r * cols;
        float mn = row[0], mx = row[0];
        for (int c = 1; c < cols; ++c) { mn = fminf(mn, row[c]); mx = fmaxf(mx, row[c]); }
        float range = mx - mn;
        float inv = range > 0.0f ? 1.0f / range : 0.0f;
        for (int c = 0; c < cols; ++c) {
            float ref = (row[c] - mn) * inv;
            if (fabsf(ref - h_y[(size_t)r * cols + c]) > 1e-6f) ++bad;
        }
    }

    printf("rows %d cols %d checksum %.6f\n", rows, cols, checksum);
    printf("spot check: %s\n", bad == 0 ? "match" : "MISMATCH");

    CHECK(cudaFree(d_x));
    CHECK(cudaFree(d_y));
    free(h_x);
    free(h_y);
    return bad == 0 ? 0 : 1;
}
