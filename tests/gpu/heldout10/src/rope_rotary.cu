// Rotary position embedding (rotate-half form) applied to a [seq][heads][head_dim] query tensor.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cmath>

#define CUDA_OK(x) cuda_ok((x), #x, __LINE__)

static void cuda_ok(cudaError_t err, const char* expr, int line)
{
    if (err != cudaSuccess) {
        fprintf(stderr, "line %d: %s -> %s\n", line, expr, cudaGetErrorString(err));
        exit(1);
    }
}

static uint32_t lowbias32(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x21f0aaadU;
    x ^= x >> 15;
    x *= 0x735a2d97U;
    x ^= x >> 15;
    return x;
}

template <int HEAD_DIM>
__global__ void rope_rotate(const float* q, const float* cos_tab, const float* sin_tab,
                            float* out, int seq_len, int heads)
{
    const int half = HEAD_DIM / 2;
    size_t pair = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t total = (size_t)seq_len * heads * half;
    if (pair >= total) return;

    int j = (int)(pair % half);
    size_t row = pair / half;          // token * heads + head
    int t = (int)(row / heads);

    const float* v = q + row * HEAD_DIM;
    float x1 = v[j];
    float x2 = v[j + half];
    float c = cos_tab[t * half + j];
    float s = sin_tab[t * half + j];

    float* o = out + row * HEAD_DIM;
    o[j] = x1 * c - x2 * s;
    o[j + half] = x2 * c + x1 * s;
}

int main()
{
    const int seq_len = 8192;
    const int heads = 32;
    const int head_dim = 128;
    const int half = head_dim / 2;
    const size_t count = (size_t)seq_len * heads * head_dim;
    const size_t table = (size_t)seq_len * half;

    float* h_q = new float[count];
    float* h_out = new float[count];
    float* h_cos = new float[table];
    float* h_sin = new float[table];
    for (size_t i = 0; i < count; ++i)
        h_q[i] = (float)((int)(lowbias32((uint32_t)i) % 129u) - 64) / 16.0f;
    for (int t = 0; t < seq_len; ++t)
        for (int j = 0; j < half; ++j) {
            double inv_freq = std::pow(10000.0, -2.0 * j / head_dim);
            h_cos[(size_t)t * half + j] = (float)std::cos(t * inv_freq);
            h_sin[(size_t)t * half + j] = (float)std::sin(t * inv_freq);
        }

    float *d_q, *d_out, *d_cos, *d_sin;
    CUDA_OK(cudaMalloc(&d_q, count * sizeof(float)));
    CUDA_OK(cudaMalloc(&d_out, count * sizeof(float)));
    CUDA_OK(cudaMalloc(&d_cos, table * sizeof(float)));
    CUDA_OK(cudaMalloc(&d_sin, table * sizeof(float)));
    CUDA_OK(cudaMemcpy(d_q, h_q, count * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(d_cos, h_cos, table * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(d_sin, h_sin, table * sizeof(float), cudaMemcpyHostToDevice));

    const size_t pairs = count / 2;
    const int threads = 256;
    const unsigned int blocks = (unsigned int)((pairs + threads - 1) / threads);
    rope_rotate<128><<<blocks, threads>>>(d_q, d_cos, d_sin, d_out, seq_len, heads);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaDeviceSynchronize());
    CUDA_OK(cudaMemcpy(h_out, d_out, count * sizeof(float), cudaMemcpyDeviceToHost));

    long mismatches = 0;
    long checked = 0;
    for (size_t p = 0; p < pairs; p += (p < 65536 || p >= pairs - 65536) ? 1 : 1013) {
        int j = (int)(p % half);
        size_t row = p / half;
        int t = (int)(row / heads);
        double x1 = h_q[row * head_dim + j], x2 = h_q[row * head_dim + j + half];
        double c = h_cos[(size_t)t * half + j], s = h_sin[(size_t)t * half + j];
        double want1 = x1 * c - x2 * s;
        double want2 = x2 * c + x1 * s;
        double got1 = h_out[row * head_dim + j], got2 = h_out[row * head_dim + j + half];
        checked += 2;
        if (std::fabs(got1 - want1) > 1e-5 + 1e-5 * std::fabs(want1)) ++mismatches;
        if (std::fabs(got2 - want2) > 1e-5 + 1e-5 * std::fabs(want2)) ++mismatches;
    }

    double checksum = 0.0;
    for (size_t i = 0; i < count; ++i) checksum += h_out[i] * (double)((i % 7) + 1);

    printf("rope_rotate<%d>: seq %d, heads %d, checked %ld, mismatches %ld\n",
           head_dim, seq_len, heads, checked, mismatches);
    printf("checksum %.6f\n", checksum);

    CUDA_OK(cudaFree(d_q));
    CUDA_OK(cudaFree(d_out));
    CUDA_OK(cudaFree(d_cos));
    CUDA_OK(cudaFree(d_sin));
    delete[] h_q;
    delete[] h_out;
    delete[] h_cos;
    delete[] h_sin;
    return mismatches == 0 ? 0 : 1;
}
