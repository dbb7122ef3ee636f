// Causal (masked) attention softmax.  scores holds BATCH*HEADS*T rows of T
// key scores; row r belongs to query position t = r % T, which may only see
// keys 0..t.  probs[r][j] = softmax_j(scale * scores[r][j]) over the visible
// keys, and exactly 0 for the masked keys j > t.
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

#define CK(x) checkCuda((x), __FILE__, __LINE__)

static void checkCuda(cudaError_t e, const char* file, int line)
{
    if (e != cudaSuccess) {
        fprintf(stderr, "CUDA error at %s:%d: %s\n", file, line, cudaGetErrorString(e));
        exit(1);
    }
}

__global__ void causal_softmax(const float* scores, float* probs,
                               unsigned int rows, unsigned int T, float scale)
{
    unsigned int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < rows) {
        const float* s = scores + (size_t)row * T;
        float* p = probs + (size_t)row * T;
        unsigned int t = row % T;

        float mx = -INFINITY;
        for (unsigned int j = 0; j <= t; ++j)
            mx = fmaxf(mx, s[j] * scale);

        float sum = 0.0f;
        for (unsigned int j = 0; j <= t; ++j)
            sum += expf(s[j] * scale - mx);

        float inv = 1.0f / sum;
        for (unsigned int j = 0; j < T; ++j)
            p[j] = (j <= t) ? expf(s[j] * scale - mx) * inv : 0.0f;
    }
}

int main()
{
    const unsigned int BATCH = 2, HEADS = 16, T = 1024, HEAD_DIM = 64;
    const unsigned int rows = BATCH * HEADS * T;          // 32768
    const size_t n = (size_t)rows * T;                    // 33.5M scores
    const float scale = 1.0f / sqrtf((float)HEAD_DIM);    // 0.125

    float* h_s = new float[n];
    float* h_p = new float[n];
    for (size_t i = 0; i < n; ++i) {
        unsigned int h = (unsigned int)(i * 2654435761ull) ^ (unsigned int)(i >> 11);
        h ^= h >> 13;
        h_s[i] = ((int)(h % 2001u) - 1000) * 0.01f;       // [-10, 10]
    }

    float *d_s, *d_p;
    CK(cudaMalloc(&d_s, n * sizeof(float)));
    CK(cudaMalloc(&d_p, n * sizeof(float)));
    CK(cudaMemcpy(d_s, h_s, n * sizeof(float), cudaMemcpyHostToDevice));
    CK(cudaMemset(d_p, 0xFF, n * sizeof(float)));         // NaN: every entry must be written

    const unsigned int threads = 128;
    const unsigned int blocks = (rows + threads - 1) / threads;
    causal_softmax<<<blocks, threads>>>(d_s, d_p, rows, T, scale);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(h_p, d_p, n * sizeof(float), cudaMemcpyDeviceToHost));

    // Full host reference in double.
    long long bad = 0;
    double max_rel = 0.0, checksum = 0.0;
    for (unsigned int r = 0; r < rows; ++r) {
        const float* s = h_s + (size_t)r * T;
        const float* p = h_p + (size_t)r * T;
        unsigned int t = r % T;
        double mx = -INFINITY;
        for (unsigned int j = 0; j <= t; ++j) mx = fmax(mx, (double)(s[j] * scale));
        double sum = 0.0;
        for (unsigned int j = 0; j <= t; ++j) sum += exp((double)(s[j] * scale) - mx);
        for (unsigned int j = 0; j < T; ++j) {
            double ref = (j <= t) ? exp((double)(s[j] * scale) - mx) / sum : 0.0;
            double got = p[j];
            checksum += got * (double)(j % 7 + 1);
            bool ok;
            if (j > t) {
                ok = (p[j] == 0.0f);
            } else {
                double rel = fabs(got - ref) / ref;
                if (rel > max_rel) max_rel = rel;
                ok = (rel <= 2e-4);                       // also false for NaN
            }
            if (!ok) {
                if (bad < 10)
                    printf("mismatch row %u col %u: got %.9g expected %.9g\n", r, j, got, ref);
                ++bad;
            }
        }
    }

    printf("causal_softmax %u rows x %u: max rel err %.3e, %lld mismatches\n", rows, T, max_rel, bad);
    printf("checksum %.6f\n", checksum);

    CK(cudaFree(d_s));
    CK(cudaFree(d_p));
    delete[] h_s;
    delete[] h_p;

    if (bad) {
        printf("FAILED\n");
        return 1;
    }
    printf("OK\n");
    return 0;
}
