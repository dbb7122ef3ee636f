// 3x3 median filter (clamp to edge) over an 8192 x 8192 float image with
// salt-and-pepper noise; each pixel sorts its 9-pixel window.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

static void checkCuda(cudaError_t e, const char* file, int line)
{
    if (e != cudaSuccess) {
        fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(e), file, line);
        exit(1);
    }
}
#define CK(x) checkCuda((x), __FILE__, __LINE__)

__device__ int clampi(int v, int lo, int hi)
{
    return v < lo ? lo : (v > hi ? hi : v);
}

__global__ void median3x3(const float* __restrict__ src, float* __restrict__ dst, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;

    float w[9];
    int n = 0;
    for (int dy = -1; dy <= 1; ++dy) {
        const float* row = src + (size_t)clampi(y + dy, 0, height - 1) * width;
        for (int dx = -1; dx <= 1; ++dx)
            w[n++] = row[clampi(x + dx, 0, width - 1)];
    }

    // insertion sort of the window
    for (int i = 1; i < 9; ++i) {
        float v = w[i];
        int j = i - 1;
        while (j >= 0 && w[j] > v) {
            w[j + 1] = w[j];
            --j;
        }
        w[j + 1] = v;
    }
    dst[(size_t)y * width + x] = w[4];
}

int main()
{
    const int width = 8192, height = 8192;
    const size_t pixels = (size_t)width * height;

    float* h_img = (float*)malloc(pixels * sizeof(float));
    float* h_out = (float*)malloc(pixels * sizeof(float));
    if (!h_img || !h_out) return 1;

    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            unsigned int h = (unsigned int)(y * width + x) * 2246822519u;
            h ^= h >> 15;
            h *= 3266489917u;
            h ^= h >> 13;
            float v = (float)((x / 16 + y / 16) % 32) / 32.0f;   // smooth-ish blocks
            if (h % 100u < 5u) v = 1.0f;          // salt
            else if (h % 100u < 10u) v = 0.0f;    // pepper
            h_img[(size_t)y * width + x] = v;
        }
    }

    float *d_src, *d_dst;
    CK(cudaMalloc(&d_src, pixels * sizeof(float)));
    CK(cudaMalloc(&d_dst, pixels * sizeof(float)));
    CK(cudaMemcpy(d_src, h_img, pixels * sizeof(float), cudaMemcpyHostToDevice));

    dim3 block(16, 16);
    dim3 grid((width + 15) / 16, (height + 15) / 16);
    median3x3<<<grid, block>>>(d_src, d_dst, width, height);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());

    CK(cudaMemcpy(h_out, d_dst, pixels * sizeof(float), cudaMemcpyDeviceToHost));

    double sum = 0.0, wsum = 0.0;
    for (size_t i = 0; i < pixels; ++i) {
        sum += h_out[i];
        wsum += h_out[i] * (double)(i % 11 + 1);
    }
    printf("median3x3: checksum %.6f weighted %.6f\n", sum, wsum);

    CK(cudaFree(d_src));
    CK(cudaFree(d_dst));
    free(h_img);
    free(h_out);
    return 0;
}
