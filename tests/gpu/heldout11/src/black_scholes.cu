// European call and put prices with the Black-Scholes formula for 32M
// options (spot, strike, years to expiry per option; one risk-free rate and
// one volatility for all).
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK_CUDA(call)                                                        \
    do {                                                                        \
        cudaError_t status_ = (call);                                           \
        if (status_ != cudaSuccess) {                                           \
            fprintf(stderr, "error: %s returned %s (line %d)\n", #call,         \
                    cudaGetErrorString(status_), __LINE__);                     \
            exit(EXIT_FAILURE);                                                 \
        }                                                                       \
    } while (0)

// cumulative normal distribution, Abramowitz & Stegun polynomial approximation
__device__ float cnd(float d)
{
    const float A1 = 0.31938153f;
    const float A2 = -0.356563782f;
    const float A3 = 1.781477937f;
    const float A4 = -1.821255978f;
    const float A5 = 1.330274429f;
    const float RSQRT2PI = 0.39894228040143267794f;

    float k = 1.0f / (1.0f + 0.2316419f * fabsf(d));
    float c = RSQRT2PI * expf(-0.5f * d * d) *
              (k * (A1 + k * (A2 + k * (A3 + k * (A4 + k * A5)))));
    if (d > 0.0f) c = 1.0f - c;
    return c;
}

__global__ void black_scholes(float* call, float* put, const float* spot, const float* strike,
                              const float* years, float riskfree, float volatility, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;

    float s = spot[i];
    float x = strike[i];
    float t = years[i];
    float sqrt_t = sqrtf(t);
    float d1 = (logf(s / x) + (riskfree + 0.5f * volatility * volatility) * t) / (volatility * sqrt_t);
    float d2 = d1 - volatility * sqrt_t;
    float cnd1 = cnd(d1);
    float cnd2 = cnd(d2);
    float disc = expf(-riskfree * t);
    call[i] = s * cnd1 - x * disc * cnd2;
    put[i] = x * disc * (1.0f - cnd2) - s * (1.0f - cnd1);
}

static float uniform(unsigned long long i, unsigned int salt, float lo, float hi)
{
    unsigned long long h = i * 0x9E3779B97F4A7C15ull + salt;
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 32;
    return lo + (hi - lo) * (float)(h & 0xFFFFFF) / 16777216.0f;
}

int main()
{
    const long long n = 1LL << 25;
    const float riskfree = 0.02f;
    const float volatility = 0.30f;
    const size_t bytes = (size_t)n * sizeof(float);

    float* h_spot = new float[n];
    float* h_strike = new float[n];
    float* h_years = new float[n];
    float* h_call = new float[n];
    float* h_put = new float[n];
    for (long long i = 0; i < n; ++i) {
        h_spot[i] = uniform(i, 1u, 5.0f, 30.0f);
        h_strike[i] = uniform(i, 2u, 1.0f, 100.0f);
        h_years[i] = uniform(i, 3u, 0.25f, 10.0f);
    }

    float *d_spot, *d_strike, *d_years, *d_call, *d_put;
    CHECK_CUDA(cudaMalloc(&d_spot, bytes));
    CHECK_CUDA(cudaMalloc(&d_strike, bytes));
    CHECK_CUDA(cudaMalloc(&d_years, bytes));
    CHECK_CUDA(cudaMalloc(&d_call, bytes));
    CHECK_CUDA(cudaMalloc(&d_put, bytes));
    CHECK_CUDA(cudaMemcpy(d_spot, h_spot, bytes, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(d_strike, h_strike, bytes, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(d_years, h_years, bytes, cudaMemcpyHostToDevice));

    int threads = 128;
    long long blocks = (n + threads - 1) / threads;
    black_scholes<<<(unsigned int)blocks, threads>>>(d_call, d_put, d_spot, d_strike, d_years,
                                                     riskfree, volatility, n);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaDeviceSynchronize());

    CHECK_CUDA(cudaMemcpy(h_call, d_call, bytes, cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(h_put, d_put, bytes, cudaMemcpyDeviceToHost));

    double call_sum = 0.0, put_sum = 0.0;
    for (long long i = 0; i < n; ++i) {
        call_sum += h_call[i];
        put_sum += h_put[i];
    }
    printf("black_scholes: %lld options, call sum %.4f, put sum %.4f\n", n, call_sum, put_sum);

    CHECK_CUDA(cudaFree(d_spot));
    CHECK_CUDA(cudaFree(d_strike));
    CHECK_CUDA(cudaFree(d_years));
    CHECK_CUDA(cudaFree(d_call));
    CHECK_CUDA(cudaFree(d_put));
    delete[] h_spot;
    delete[] h_strike;
    delete[] h_years;
    delete[] h_call;
    delete[] h_put;
    return 0;
}
