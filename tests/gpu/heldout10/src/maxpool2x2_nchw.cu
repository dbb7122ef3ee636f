// 2x2 max pooling (stride 2, no padding) over an NCHW float tensor.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>

#define N_BATCH 16
#define CHANNELS 64
#define IN_H 256
#define IN_W 256
#define OUT_H (IN_H / 2)
#define OUT_W (IN_W / 2)
#define THREADS 256

#define CHECK(call)                                                        \
    do {                                                                   \
        cudaError_t e_ = (call);                                           \
        if (e_ != cudaSuccess) {                                           \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,             \
                    cudaGetErrorString(e_));                               \
            exit(1);                                                       \
        }                                                                  \
    } while (0)

static uint32_t hash32(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

__global__ void maxpool2x2(const float* in, float* out, int total)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= total) return;

    int ox = idx % OUT_W;
    int oy = (idx / OUT_W) % OUT_H;
    int plane = idx / (OUT_W * OUT_H);

    const float* p = in + (size_t)plane * IN_H * IN_W;
    int iy = oy * 2;
    int ix = ox * 2;
    float m = p[iy * IN_W + ix];
    m = fmaxf(m, p[iy * IN_W + ix + 1]);
    m = fmaxf(m, p[(iy + 1) * IN_W + ix]);
    m = fmaxf(m, p[(iy + 1) * IN_W + ix + 1]);
    out[idx] = m;
}

static float host_pool(const std::vector<float>& in, int idx)
{
    int ox = idx % OUT_W;
    int oy = (idx / OUT_W) % OUT_H;
    int plane = idx / (OUT_W * OUT_H);
    size_t base = (size_t)plane * IN_H * IN_W;
    float m = in[base + (size_t)(2 * oy) * IN_W + 2 * ox];
    for (int dy = 0; dy < 2; ++dy)
        for (int dx = 0; dx < 2; ++dx) {
            float v = in[base + (size_t)(2 * oy + dy) * IN_W + 2 * ox + dx];
            if (v > m) m = v;
        }
    return m;
}

int main()
{
    const size_t in_count = (size_t)N_BATCH * CHANNELS * IN_H * IN_W;
    const int out_count = N_BATCH * CHANNELS * OUT_H * OUT_W;

    std::vector<float> h_in(in_count);
    for (size_t i = 0; i < in_count; ++i)
        h_in[i] = (float)((int)(hash32((uint32_t)i) % 2001u) - 1000) / 16.0f;

    float* d_in = nullptr;
    float* d_out = nullptr;
    CHECK(cudaMalloc(&d_in, in_count * sizeof(float)));
    CHECK(cudaMalloc(&d_out, (size_t)out_count * sizeof(float)));
    CHECK(cudaMemcpy(d_in, h_in.data(), in_count * sizeof(float), cudaMemcpyHostToDevice));

    int blocks = (out_count + THREADS - 1) / THREADS;
    maxpool2x2<<<blocks, THREADS>>>(d_in, d_out, out_count);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());

    std::vector<float> h_out(out_count);
    CHECK(cudaMemcpy(h_out.data(), d_out, (size_t)out_count * sizeof(float), cudaMemcpyDeviceToHost));

    long mismatches = 0;
    long checked = 0;
    for (int idx = 0; idx < out_count; ++idx) {
        bool sample = idx < 1024 || idx >= out_count - 1024 || idx % 257 == 0;
        if (!sample) continue;
        ++checked;
        if (h_out[idx] != host_pool(h_in, idx)) {
            if (mismatches < 5)
                fprintf(stderr, "mismatch at %d: got %f want %f\n", idx, h_out[idx], host_pool(h_in, idx));
            ++mismatches;
        }
    }

    double checksum = 0.0;
    for (int idx = 0; idx < out_count; ++idx) checksum += h_out[idx];

    printf("maxpool2x2: %dx%dx%dx%d -> %dx%d, checked %ld, mismatches %ld\n",
           N_BATCH, CHANNELS, IN_H, IN_W, OUT_H, OUT_W, checked, mismatches);
    printf("checksum %.6f\n", checksum);

    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    return mismatches == 0 ? 0 : 1;
}
