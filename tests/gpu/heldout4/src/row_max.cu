// Maximum of every row of a rows x cols matrix, one thread per row.
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

#define CHECK(x)                                                                \
    if ((x) != cudaSuccess) {                                                   \
        fprintf(stderr, "CUDA error at %s:%d: %s\n", __FILE__, __LINE__,        \
                cudaGetErrorString(cudaGetLastError()));                        \
        return 1;                                                               \
    }

template <typename T>
__global__ void row_max(const T* in, T* out, int rows, int cols)
{
    int row = threadIdx.x + blockIdx.x * blockDim.x;
    if (row >= rows) return;

    const T* p = in + (size_t)row * cols;
    T m = p[0];
    for (int j = 1; j < cols; j++) {
        if (p[j] > m)
            m = p[j];
    }
    out[row] = m;
}

int main(int argc, char** argv)
{
    int rows = 16384;
    int cols = 1024;
    if (argc > 1) rows = atoi(argv[1]);
    if (argc > 2) cols = atoi(argv[2]);
    size_t total = (size_t)rows * cols;
    printf("row_max<float>: %d rows x %d cols\n", rows, cols);

    float* h_in = new float[total];
    float* h_out = new float[rows];
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++)
            h_in[(size_t)r * cols + c] = cosf(0.013f * c + 0.7f * r) * (1.0f + (r % 5));

    float* d_in = nullptr;
    float* d_out = nullptr;
    CHECK(cudaMalloc(&d_in, total * sizeof(float)));
    CHECK(cudaMalloc(&d_out, rows * sizeof(float)));
    CHECK(cudaMemcpy(d_in, h_in, total * sizeof(float), cudaMemcpyHostToDevice));

    int threadsPerBlock = 256;
    int numBlocks = (rows + threadsPerBlock - 1) / threadsPerBlock;
    row_max<float><<<numBlocks, threadsPerBlock>>>(d_in, d_out, rows, cols);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(h_out, d_out, rows * sizeof(float), cudaMemcpyDeviceToHost));

    double checksum = 0.0;
    for (int r = 0; r < rows; r++)
        checksum += (double)h_out[r] * (double)((r % 3) + 1);
    printf("checksum: %.6f (out[0]=%.6f)\n", checksum, h_out[0]);

    cudaFree(d_in);
    cudaFree(d_out);
    delete[] h_in;
    delete[] h_out;
    return 0;
}
