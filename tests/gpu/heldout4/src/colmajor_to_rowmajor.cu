// Reads a column-major rows x cols matrix and writes it row-major, scaled by 2:
// out[r*cols + c] = 2 * in[c*rows + r].  2-D grid of 32x8 blocks,
// threadIdx.x runs along r.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(ans) { gpuAssert((ans), __FILE__, __LINE__); }
inline void gpuAssert(cudaError_t code, const char* file, int line)
{
    if (code != cudaSuccess) {
        fprintf(stderr, "GPUassert: %s %s %d\n", cudaGetErrorString(code), file, line);
        exit(code);
    }
}

__global__ void cm_to_rm_scale(float* __restrict__ out, const float* __restrict__ in,
                               int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    int c = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols)
        out[(size_t)r * cols + c] = 2.0f * in[(size_t)c * rows + r];
}

int main(int argc, char** argv)
{
    int rows = 8192, cols = 8192;
    if (argc > 1) rows = atoi(argv[1]);
    if (argc > 2) cols = atoi(argv[2]);
    size_t n = (size_t)rows * cols;
    printf("cm_to_rm_scale: %d x %d\n", rows, cols);

    float* h_in = (float*)malloc(n * sizeof(float));
    float* h_out = (float*)malloc(n * sizeof(float));
    // column-major input: element (r, c) lives at c*rows + r
    for (int c = 0; c < cols; c++)
        for (int r = 0; r < rows; r++)
            h_in[(size_t)c * rows + r] = (float)(r % 100) + 0.001f * (float)(c % 1000);

    float *d_in, *d_out;
    CHECK(cudaMalloc(&d_in, n * sizeof(float)));
    CHECK(cudaMalloc(&d_out, n * sizeof(float)));
    CHECK(cudaMemcpy(d_in, h_in, n * sizeof(float), cudaMemcpyHostToDevice));

    dim3 block(32, 8);
    dim3 grid((rows + block.x - 1) / block.x, (cols + block.y - 1) / block.y);
    cm_to_rm_scale<<<grid, block>>>(d_out, d_in, rows, cols);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(h_out, d_out, n * sizeof(float), cudaMemcpyDeviceToHost));

    double checksum = 0.0;
    for (size_t i = 0; i < n; i++)
        checksum += (double)h_out[i] * (double)((i % 7) + 1);
    printf("checksum: %.4f  out[1]=%.4f (expect %.4f)\n", checksum, h_out[1 % n],
           2.0 * h_in[(size_t)(1 % cols) * rows]);

    cudaFree(d_in);
    cudaFree(d_out);
    free(h_in);
    free(h_out);
    return 0;
}
