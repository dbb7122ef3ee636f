// Sobel gradient magnitude of an 8192x8192 image: out = sqrt(gx^2 + gy^2)
// with the 3x3 Sobel kernels, clamp-to-edge at the borders (every pixel is
// written). 2-D grid of 16x16 blocks, __device__ pixel helper.
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

static void cudaCheck(cudaError_t err, const char* file, int line)
{
    if (err != cudaSuccess) {
        fprintf(stderr, "[CUDA ERROR] at file %s:%d:\n%s\n", file, line, cudaGetErrorString(err));
        exit(EXIT_FAILURE);
    }
}
#define cudaCheck(err) (cudaCheck(err, __FILE__, __LINE__))

__device__ float pix(const float* img, int x, int y, int w, int h)
{
    x = min(max(x, 0), w - 1);
    y = min(max(y, 0), h - 1);
    return img[(size_t)y * w + x];
}

__global__ void sobel(const float* in, float* out, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;

    float gx = -pix(in, x - 1, y - 1, w, h) - 2.0f * pix(in, x - 1, y, w, h) - pix(in, x - 1, y + 1, w, h)
               + pix(in, x + 1, y - 1, w, h) + 2.0f * pix(in, x + 1, y, w, h) + pix(in, x + 1, y + 1, w, h);
    float gy = -pix(in, x - 1, y - 1, w, h) - 2.0f * pix(in, x, y - 1, w, h) - pix(in, x + 1, y - 1, w, h)
               + pix(in, x - 1, y + 1, w, h) + 2.0f * pix(in, x, y + 1, w, h) + pix(in, x + 1, y + 1, w, h);
    out[(size_t)y * w + x] = sqrtf(gx * gx + gy * gy);
}

static float host_pix(const float* img, int x, int y, int w, int h)
{
    x = x < 0 ? 0 : (x > w - 1 ? w - 1 : x);
    y = y < 0 ? 0 : (y > h - 1 ? h - 1 : y);
    return img[(size_t)y * w + x];
}

int main()
{
    const int W = 8192, H = 8192;
    const size_t n = (size_t)W * H;
    float* img = (float*)malloc(n * sizeof(float));
    float* res = (float*)malloc(n * sizeof(float));
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) {
            unsigned int v = (unsigned int)x * x + 3u * y + (unsigned int)x * y;
            img[(size_t)y * W + x] = (float)(v % 256u) / 255.0f;
        }

    float *d_in, *d_out;
    cudaCheck(cudaMalloc(&d_in, n * sizeof(float)));
    cudaCheck(cudaMalloc(&d_out, n * sizeof(float)));
    cudaCheck(cudaMemcpy(d_in, img, n * sizeof(float), cudaMemcpyHostToDevice));

    dim3 threads(16, 16);
    dim3 blocks((W + 15) / 16, (H + 15) / 16);
    sobel<<<blocks, threads>>>(d_in, d_out, W, H);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaDeviceSynchronize());
    cudaCheck(cudaMemcpy(res, d_out, n * sizeof(float), cudaMemcpyDeviceToHost));

    double checksum = 0.0;
    for (size_t i = 0; i < n; ++i) checksum += res[i];

    int bad = 0;
    const int xs[6] = {0, 1, 17, 4095, 8190, 8191};
    const int ys[6] = {0, 8191, 3, 2048, 77, 6000};
    for (int a = 0; a < 6; ++a)
        for (int b = 0; b < 6; ++b) {
            int x = xs[a], y = ys[b];
            double gx = -host_pix(img, x - 1, y - 1, W, H) - 2.0 * host_pix(img, x - 1, y, W, H) - host_pix(img, x - 1, y + 1, W, H)
                        + host_pix(img, x + 1, y - 1, W, H) + 2.0 * host_pix(img, x + 1, y, W, H) + host_pix(img, x + 1, y + 1, W, H);
            double gy = -host_pix(img, x - 1, y - 1, W, H) - 2.0 * host_pix(img, x, y - 1, W, H) - host_pix(img, x + 1, y - 1, W, H)
                        + host_pix(img, x - 1, y + 1, W, H) + 2.0 * host_pix(img, x, y + 1, W, H) + host_pix(img, x + 1, y + 1, W, H);
            double ref = sqrt(gx * gx + gy * gy);
            if (fabs(ref - res[(size_t)y * W + x]) > 1e-4 * (1.0 + ref)) ++bad;
        }
    printf("sobel %dx%d checksum %.4f\n", W, H, checksum);
    printf("spot check: %s\n", bad ? "MISMATCH" : "match");

    cudaFree(d_in);
    cudaFree(d_out);
    free(img);
    free(res);
    return 0;
}
