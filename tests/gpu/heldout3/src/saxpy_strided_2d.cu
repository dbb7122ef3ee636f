// 2-D saxpy y = alpha * x + y over a rows x cols matrix stored with a
// leading dimension ld >= cols; threadIdx.x walks the rows.
// usage: saxpy_strided_2d [rows] [cols] [ld]
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void saxpy2d(int rows, int cols, int ld, float alpha, const float* x, float* y)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    int c = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols) {
        size_t idx = (size_t)r * ld + c;
        y[idx] = alpha * x[idx] + y[idx];
    }
}

int main(int argc, char** argv)
{
    int rows = argc > 1 ? atoi(argv[1]) : 8192;
    int cols = argc > 2 ? atoi(argv[2]) : 8192;
    int ld = argc > 3 ? atoi(argv[3]) : cols + 32;
    if (ld < cols) ld = cols;
    size_t n = (size_t)rows * ld;

    float* hx = (float*)malloc(n * sizeof(float));
    float* hy = (float*)malloc(n * sizeof(float));
    for (size_t i = 0; i < n; i++) {
        hx[i] = (float)((i * 7) % 13) / 13.0f - 0.5f;
        hy[i] = (float)((i * 3) % 7) / 7.0f;
    }

    float *dx, *dy;
    cudaMalloc(&dx, n * sizeof(float));
    cudaMalloc(&dy, n * sizeof(float));
    cudaMemcpy(dx, hx, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dy, hy, n * sizeof(float), cudaMemcpyHostToDevice);

    dim3 block(32, 8);
    dim3 grid((rows + block.x - 1) / block.x, (cols + block.y - 1) / block.y);
    saxpy2d<<<grid, block>>>(rows, cols, ld, 2.5f, dx, dy);
    cudaDeviceSynchronize();

    cudaMemcpy(hy, dy, n * sizeof(float), cudaMemcpyDeviceToHost);
    double checksum = 0.0;
    for (int r = 0; r < rows; r++) {
        const float* row = hy + (size_t)r * ld;
        for (int c = 0; c < cols; c++)
            checksum += row[c];
    }
    printf("saxpy_strided_2d %d x %d ld %d checksum %.6f\n", rows, cols, ld, checksum);

    cudaFree(dx);
    cudaFree(dy);
    free(hx);
    free(hy);
    return 0;
}
