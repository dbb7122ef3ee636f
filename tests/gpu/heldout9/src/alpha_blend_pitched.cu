// Alpha compositing of two single-channel float images with a per-pixel
// alpha matte: out = alpha * fg + (1 - alpha) * bg.  The images live in
// pitched device allocations (cudaMallocPitch / cudaMemcpy2D) and the kernel
// walks them through byte-offset row pointers.
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define cudaCheckErrors(msg)                                               \
    do {                                                                   \
        cudaError_t __err = cudaGetLastError();                            \
        if (__err != cudaSuccess) {                                        \
            fprintf(stderr, "Fatal error: %s (%s at %s:%d)\n", msg,        \
                    cudaGetErrorString(__err), __FILE__, __LINE__);        \
            fprintf(stderr, "*** FAILED - ABORTING\n");                    \
            exit(1);                                                       \
        }                                                                  \
    } while (0)

#define WIDTH 8192
#define HEIGHT 8192

__global__ void alpha_blend(const float* fg, const float* bg, const float* alpha,
                            float* out, size_t pitch, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;

    const float* f = (const float*)((const char*)fg + y * pitch);
    const float* b = (const float*)((const char*)bg + y * pitch);
    const float* a = (const float*)((const char*)alpha + y * pitch);
    float* o = (float*)((char*)out + y * pitch);

    float t = a[x];
    o[x] = t * f[x] + (1.0f - t) * b[x];
}

int main(void)
{
    const size_t row_bytes = WIDTH * sizeof(float);
    const size_t count = (size_t)WIDTH * HEIGHT;
    float* h_fg = (float*)malloc(count * sizeof(float));
    float* h_bg = (float*)malloc(count * sizeof(float));
    float* h_a = (float*)malloc(count * sizeof(float));
    float* h_out = (float*)malloc(count * sizeof(float));
    if (!h_fg || !h_bg || !h_a || !h_out) {
        fprintf(stderr, "host allocation failed\n");
        return 1;
    }

    // fg/bg are multiples of 1/8 in [0, 4), alpha is one of 0, 1/4, 1/2, 3/4, 1:
    // the blend is exact in fp32.
    for (int y = 0; y < HEIGHT; ++y) {
        for (int x = 0; x < WIDTH; ++x) {
            size_t i = (size_t)y * WIDTH + x;
            h_fg[i] = (float)((x * 3 + y * 5) % 32) * 0.125f;
            h_bg[i] = (float)((x * 7 + y * 2 + 11) % 32) * 0.125f;
            unsigned int h = (unsigned int)(x * 73856093u) ^ (unsigned int)(y * 19349663u);
            h_a[i] = (float)((h >> 7) % 5u) * 0.25f;
        }
    }

    float *d_fg, *d_bg, *d_a, *d_out;
    size_t pitch_fg, pitch_bg, pitch_a, pitch_out;
    cudaMallocPitch((void**)&d_fg, &pitch_fg, row_bytes, HEIGHT);
    cudaMallocPitch((void**)&d_bg, &pitch_bg, row_bytes, HEIGHT);
    cudaMallocPitch((void**)&d_a, &pitch_a, row_bytes, HEIGHT);
    cudaMallocPitch((void**)&d_out, &pitch_out, row_bytes, HEIGHT);
    cudaCheckErrors("cudaMallocPitch failed");
    if (pitch_bg != pitch_fg || pitch_a != pitch_fg || pitch_out != pitch_fg) {
        fprintf(stderr, "unexpected: pitches differ (%zu %zu %zu %zu)\n",
                pitch_fg, pitch_bg, pitch_a, pitch_out);
        return 1;
    }
    const size_t pitch = pitch_fg;

    cudaMemcpy2D(d_fg, pitch, h_fg, row_bytes, row_bytes, HEIGHT, cudaMemcpyHostToDevice);
    cudaMemcpy2D(d_bg, pitch, h_bg, row_bytes, row_bytes, HEIGHT, cudaMemcpyHostToDevice);
    cudaMemcpy2D(d_a, pitch, h_a, row_bytes, row_bytes, HEIGHT, cudaMemcpyHostToDevice);
    cudaCheckErrors("cudaMemcpy2D to device failed");

    dim3 block(32, 16);
    dim3 grid((WIDTH + block.x - 1) / block.x, (HEIGHT + block.y - 1) / block.y);
    alpha_blend<<<grid, block>>>(d_fg, d_bg, d_a, d_out, pitch, WIDTH, HEIGHT);
    cudaCheckErrors("alpha_blend launch failed");
    cudaDeviceSynchronize();
    cudaCheckErrors("alpha_blend execution failed");

    cudaMemcpy2D(h_out, row_bytes, d_out, pitch, row_bytes, HEIGHT, cudaMemcpyDeviceToHost);
    cudaCheckErrors("cudaMemcpy2D to host failed");

    size_t bad = 0;
    double checksum = 0.0;
    for (size_t i = 0; i < count; ++i) {
        float t = h_a[i];
        float ref = t * h_fg[i] + (1.0f - t) * h_bg[i];
        if (h_out[i] != ref) {
            if (bad < 10)
                printf("mismatch at (%zu, %zu): got %f expected %f\n",
                       i / WIDTH, i % WIDTH, h_out[i], ref);
            ++bad;
        }
        checksum += (double)h_out[i] * (double)((i % 7) + 1);
    }
    printf("alpha_blend %dx%d (pitch %zu bytes): %zu mismatches\n", WIDTH, HEIGHT, pitch, bad);
    printf("checksum %.6f\n", checksum);

    cudaFree(d_fg);
    cudaFree(d_bg);
    cudaFree(d_a);
    cudaFree(d_out);
    free(h_fg);
    free(h_bg);
    free(h_a);
    free(h_out);

    if (bad) {
        printf("FAILED\n");
        return 1;
    }
    printf("OK\n");
    return 0;
}
