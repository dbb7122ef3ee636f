// RGB -> grayscale on interleaved 8-bit pixels (fixed-point BT.601-like weights).
#include <cstdio>
#include <cstdlib>
#include <cstdint>

static const int WIDTH = 8192;
static const int HEIGHT = 8192;

static void check(cudaError_t err, const char* what)
{
    if (err != cudaSuccess) {
        fprintf(stderr, "CUDA error in %s: %s\n", what, cudaGetErrorString(err));
        exit(EXIT_FAILURE);
    }
}

static unsigned int mix(unsigned int x)
{
    x ^= x >> 17;
    x *= 0xed5ad4bbU;
    x ^= x >> 11;
    x *= 0xac4c1b51U;
    x ^= x >> 15;
    x *= 0x31848babU;
    x ^= x >> 14;
    return x;
}

__global__ void rgb_to_gray(const unsigned char* rgb, unsigned char* gray, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) {
        size_t p = (size_t)y * width + x;
        unsigned int r = rgb[3 * p];
        unsigned int g = rgb[3 * p + 1];
        unsigned int b = rgb[3 * p + 2];
        gray[p] = (unsigned char)((77u * r + 150u * g + 29u * b + 128u) >> 8);
    }
}

int main()
{
    const size_t pixels = (size_t)WIDTH * HEIGHT;
    unsigned char* h_rgb = (unsigned char*)malloc(pixels * 3);
    unsigned char* h_gray = (unsigned char*)malloc(pixels);
    if (!h_rgb || !h_gray) {
        fprintf(stderr, "host allocation failed\n");
        return 1;
    }
    for (size_t p = 0; p < pixels; ++p) {
        unsigned int h = mix((unsigned int)p);
        h_rgb[3 * p] = (unsigned char)(h & 0xffu);
        h_rgb[3 * p + 1] = (unsigned char)((h >> 8) & 0xffu);
        h_rgb[3 * p + 2] = (unsigned char)((h >> 16) & 0xffu);
    }

    unsigned char* d_rgb = nullptr;
    unsigned char* d_gray = nullptr;
    check(cudaMalloc(&d_rgb, pixels * 3), "cudaMalloc rgb");
    check(cudaMalloc(&d_gray, pixels), "cudaMalloc gray");
    check(cudaMemcpy(d_rgb, h_rgb, pixels * 3, cudaMemcpyHostToDevice), "copy rgb");

    dim3 block(32, 8);
    dim3 grid((WIDTH + block.x - 1) / block.x, (HEIGHT + block.y - 1) / block.y);
    rgb_to_gray<<<grid, block>>>(d_rgb, d_gray, WIDTH, HEIGHT);
    check(cudaGetLastError(), "launch");
    check(cudaDeviceSynchronize(), "sync");
    check(cudaMemcpy(h_gray, d_gray, pixels, cudaMemcpyDeviceToHost), "copy gray");

    size_t mismatches = 0;
    unsigned long long checksum = 0;
    for (size_t p = 0; p < pixels; ++p) {
        unsigned int want = (77u * h_rgb[3 * p] + 150u * h_rgb[3 * p + 1] + 29u * h_rgb[3 * p + 2] + 128u) >> 8;
        if (h_gray[p] != want) {
            if (mismatches < 5)
                fprintf(stderr, "mismatch at %zu: got %u want %u\n", p, (unsigned)h_gray[p], want);
            ++mismatches;
        }
        checksum += h_gray[p] * (unsigned long long)(p % 977 + 1);
    }

    printf("rgb_to_gray: %dx%d pixels, mismatches %zu\n", WIDTH, HEIGHT, mismatches);
    printf("checksum %llu\n", checksum);

    check(cudaFree(d_rgb), "free rgb");
    check(cudaFree(d_gray), "free gray");
    free(h_rgb);
    free(h_gray);
    return mismatches == 0 ? 0 : 1;
}
