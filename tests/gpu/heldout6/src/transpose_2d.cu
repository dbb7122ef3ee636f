// Out-of-place transpose of a rectangular float matrix: dst (cols x rows) = src^T.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

const int ROWS = 4096;
const int COLS = 8192;
const int TILE = 16;

static void checkCuda(cudaError_t e, const char *what)
{
    if (e != cudaSuccess) {
        std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
        std::exit(1);
    }
}

__global__ void transpose_naive(float *dst, const float *src, int rows, int cols)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols)
        dst[(size_t)c * rows + r] = src[(size_t)r * cols + c];
}

int main()
{
    const size_t n = (size_t)ROWS * COLS;
    std::vector<float> src(n), dst(n, 0.0f);
    for (int r = 0; r < ROWS; ++r)
        for (int c = 0; c < COLS; ++c)
            src[(size_t)r * COLS + c] = (float)((r * 31 + c * 17) % 1000) / 1000.0f;

    float *d_src = nullptr, *d_dst = nullptr;
    checkCuda(cudaMalloc(&d_src, n * sizeof(float)), "cudaMalloc src");
    checkCuda(cudaMalloc(&d_dst, n * sizeof(float)), "cudaMalloc dst");
    checkCuda(cudaMemcpy(d_src, src.data(), n * sizeof(float), cudaMemcpyHostToDevice), "copy in");

    dim3 block(TILE, TILE);
    dim3 grid((COLS + TILE - 1) / TILE, (ROWS + TILE - 1) / TILE);
    transpose_naive<<<grid, block>>>(d_dst, d_src, ROWS, COLS);
    checkCuda(cudaGetLastError(), "launch");
    checkCuda(cudaDeviceSynchronize(), "sync");

    checkCuda(cudaMemcpy(dst.data(), d_dst, n * sizeof(float), cudaMemcpyDeviceToHost), "copy out");

    // spot check a few entries, then a position-weighted checksum
    int bad = 0;
    for (int k = 0; k < 1000; ++k) {
        int r = (k * 977) % ROWS, c = (k * 7919) % COLS;
        if (dst[(size_t)c * ROWS + r] != src[(size_t)r * COLS + c]) ++bad;
    }
    double checksum = 0.0;
    for (size_t i = 0; i < n; ++i)
        checksum += dst[i] * (double)(i % 13 + 1);
    std::printf("transpose %d x %d: %d mismatches in spot check\n", ROWS, COLS, bad);
    std::printf("checksum %.6f\n", checksum);

    cudaFree(d_src);
    cudaFree(d_dst);
    return bad == 0 ? 0 : 1;
}
