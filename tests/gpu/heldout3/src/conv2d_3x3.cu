// 2-D convolution of a float image with a KxK filter (zero padding at the
// borders); the filter lives in a plain global-memory array.
// usage: conv2d_3x3 [width] [height]
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define K 3
#define R (K / 2)

__global__ void conv2d(const float* in, const float* filter, float* out,
                       int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;

    float sum = 0.0f;
    for (int dy = -R; dy <= R; ++dy) {
        for (int dx = -R; dx <= R; ++dx) {
            int yy = y + dy;
            int xx = x + dx;
            if (xx >= 0 && xx < width && yy >= 0 && yy < height)
                sum += in[yy * width + xx] * filter[(dy + R) * K + (dx + R)];
        }
    }
    out[y * width + x] = sum;
}

int main(int argc, char** argv)
{
    int width = argc > 1 ? atoi(argv[1]) : 4096;
    int height = argc > 2 ? atoi(argv[2]) : 4096;
    int n = width * height;
    size_t bytes = (size_t)n * sizeof(float);

    float* h_in = (float*)malloc(bytes);
    float* h_out = (float*)malloc(bytes);
    float h_filter[K * K];
    for (int i = 0; i < n; i++)
        h_in[i] = (float)((i * 7) % 13) / 13.0f - 0.5f;
    for (int i = 0; i < K * K; i++)
        h_filter[i] = (float)(i + 1) / (K * K * 2.0f);

    float *d_in, *d_filter, *d_out;
    cudaMalloc(&d_in, bytes);
    cudaMalloc(&d_out, bytes);
    cudaMalloc(&d_filter, K * K * sizeof(float));
    cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_filter, h_filter, K * K * sizeof(float), cudaMemcpyHostToDevice);

    dim3 block(16, 16);
    dim3 grid((width + block.x - 1) / block.x, (height + block.y - 1) / block.y);
    conv2d<<<grid, block>>>(d_in, d_filter, d_out, width, height);
    cudaDeviceSynchronize();

    cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost);
    double checksum = 0.0;
    for (int i = 0; i < n; i++)
        checksum += h_out[i];
    printf("conv2d %dx%d K=%d checksum %.6f\n", width, height, K, checksum);

    cudaFree(d_in);
    cudaFree(d_filter);
    cudaFree(d_out);
    free(h_in);
    free(h_out);
    return 0;
}
