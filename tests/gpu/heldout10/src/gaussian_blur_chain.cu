// Separable 5-tap binomial (Gaussian) blur, clamp-to-edge: a row pass then a column pass.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>

#define IMG_W 8192
#define IMG_H 8192
#define RADIUS 2

#define CK(x) checkCuda((x), __FILE__, __LINE__)

static void checkCuda(cudaError_t err, const char* file, int line)
{
    if (err != cudaSuccess) {
        fprintf(stderr, "%s(%d): %s\n", file, line, cudaGetErrorString(err));
        exit(1);
    }
}

__host__ __device__ inline int clamp_index(int v, int lo, int hi)
{
    return v < lo ? lo : (v > hi ? hi : v);
}

// binomial weights 1 4 6 4 1, over 16
__host__ __device__ inline float tap_weight(int k)
{
    return (k == 0 ? 6.0f : (k == 1 || k == -1 ? 4.0f : 1.0f)) * 0.0625f;
}

__global__ void blur_rows(const float* src, float* dst, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float acc = 0.0f;
    for (int k = -RADIUS; k <= RADIUS; ++k)
        acc += tap_weight(k) * src[(size_t)y * w + clamp_index(x + k, 0, w - 1)];
    dst[(size_t)y * w + x] = acc;
}

__global__ void blur_cols(const float* src, float* dst, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float acc = 0.0f;
    for (int k = -RADIUS; k <= RADIUS; ++k)
        acc += tap_weight(k) * src[(size_t)clamp_index(y + k, 0, h - 1) * w + x];
    dst[(size_t)y * w + x] = acc;
}

static uint32_t wang_hash(uint32_t s)
{
    s = (s ^ 61u) ^ (s >> 16);
    s *= 9u;
    s ^= s >> 4;
    s *= 0x27d4eb2dU;
    s ^= s >> 15;
    return s;
}

int main()
{
    const int w = IMG_W, h = IMG_H;
    const size_t count = (size_t)w * h;

    // multiples of 1/8 in [-16, 16]: both passes are exact in float
    float* img = new float[count];
    for (size_t i = 0; i < count; ++i)
        img[i] = (float)((int)(wang_hash((uint32_t)i) % 257u) - 128) / 8.0f;

    float *d_src, *d_tmp, *d_dst;
    CK(cudaMalloc(&d_src, count * sizeof(float)));
    CK(cudaMalloc(&d_tmp, count * sizeof(float)));
    CK(cudaMalloc(&d_dst, count * sizeof(float)));
    CK(cudaMemcpy(d_src, img, count * sizeof(float), cudaMemcpyHostToDevice));

    dim3 block(32, 8);
    dim3 grid((w + block.x - 1) / block.x, (h + block.y - 1) / block.y);
    blur_rows<<<grid, block>>>(d_src, d_tmp, w, h);
    CK(cudaGetLastError());
    blur_cols<<<grid, block>>>(d_tmp, d_dst, w, h);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());

    float* out = new float[count];
    CK(cudaMemcpy(out, d_dst, count * sizeof(float), cudaMemcpyDeviceToHost));

    long mismatches = 0, checked = 0;
    auto check_pixel = [&](int x, int y) {
        double want = 0.0;
        for (int ky = -RADIUS; ky <= RADIUS; ++ky) {
            double row = 0.0;
            int yy = clamp_index(y + ky, 0, h - 1);
            for (int kx = -RADIUS; kx <= RADIUS; ++kx)
                row += (double)tap_weight(kx) * img[(size_t)yy * w + clamp_index(x + kx, 0, w - 1)];
            want += (double)tap_weight(ky) * row;
        }
        ++checked;
        double got = out[(size_t)y * w + x];
        if (got != want) {
            if (mismatches < 5) fprintf(stderr, "mismatch at (%d, %d): got %f want %f\n", x, y, got, want);
            ++mismatches;
        }
    };
    for (int x = 0; x < w; ++x) {
        check_pixel(x, 0); check_pixel(x, 1); check_pixel(x, h - 2); check_pixel(x, h - 1);
    }
    for (int y = 2; y < h - 2; ++y) {
        check_pixel(0, y); check_pixel(1, y); check_pixel(w - 2, y); check_pixel(w - 1, y);
    }
    for (uint32_t s = 0; s < 65536u; ++s) {
        uint32_t hs = wang_hash(s * 2654435761u + 17u);
        check_pixel((int)(hs % (uint32_t)w), (int)((hs >> 13) % (uint32_t)h));
    }

    double checksum = 0.0;
    for (size_t i = 0; i < count; ++i) checksum += out[i] * (double)(i % 5 + 1);

    printf("gaussian blur %dx%d (rows then cols): checked %ld, mismatches %ld\n", w, h, checked, mismatches);
    printf("checksum %.6f\n", checksum);

    CK(cudaFree(d_src));
    CK(cudaFree(d_tmp));
    CK(cudaFree(d_dst));
    delete[] img;
    delete[] out;
    return mismatches == 0 ? 0 : 1;
}
