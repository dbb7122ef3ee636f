// Direct (O(N^2)) discrete Fourier transform of 16 real signals of 4096
// samples each: X[k] = sum_t x[t] * exp(-2 pi i k t / N), all N bins.
#include <cstdio>
#include <cmath>
#include <vector>
#include <cuda_runtime.h>

#define NUM_SIGNALS 16
#define SIGNAL_LEN 4096
#define TWO_PI 6.28318530717958647692f

static bool ok(cudaError_t e, const char* what)
{
    if (e != cudaSuccess) {
        fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
        return false;
    }
    return true;
}

__global__ void dft_real(const float* x, float* re, float* im, int n)
{
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    int s = blockIdx.y;
    if (k >= n) return;

    const float* sig = x + (size_t)s * n;
    float sr = 0.0f, si = 0.0f;
    for (int t = 0; t < n; ++t) {
        int m = (k * t) % n;   // exact phase index, keeps the angle in [0, 2 pi)
        float sn, cs;
        sincosf(TWO_PI * (float)m / (float)n, &sn, &cs);
        sr += sig[t] * cs;
        si -= sig[t] * sn;
    }
    re[(size_t)s * n + k] = sr;
    im[(size_t)s * n + k] = si;
}

int main()
{
    const int n = SIGNAL_LEN;
    const int signals = NUM_SIGNALS;
    const size_t total = (size_t)signals * n;

    std::vector<float> h_x(total), h_re(total), h_im(total);
    for (int s = 0; s < signals; ++s) {
        for (int t = 0; t < n; ++t) {
            float a = std::sin(TWO_PI * (float)((s + 3) * t % n) / (float)n);
            float b = 0.5f * std::cos(TWO_PI * (float)((7 * s + 40) * t % n) / (float)n);
            float noise = (float)((t * 131 + s * 17) % 64 - 32) / 256.0f;
            h_x[(size_t)s * n + t] = a + b + noise;
        }
    }

    float *d_x, *d_re, *d_im;
    if (!ok(cudaMalloc(&d_x, total * sizeof(float)), "cudaMalloc x")) return 1;
    if (!ok(cudaMalloc(&d_re, total * sizeof(float)), "cudaMalloc re")) return 1;
    if (!ok(cudaMalloc(&d_im, total * sizeof(float)), "cudaMalloc im")) return 1;
    if (!ok(cudaMemcpy(d_x, h_x.data(), total * sizeof(float), cudaMemcpyHostToDevice), "copy x")) return 1;

    dim3 block(256);
    dim3 grid(n / 256, signals);
    dft_real<<<grid, block>>>(d_x, d_re, d_im, n);
    if (!ok(cudaGetLastError(), "dft_real launch")) return 1;
    if (!ok(cudaDeviceSynchronize(), "dft_real")) return 1;

    if (!ok(cudaMemcpy(h_re.data(), d_re, total * sizeof(float), cudaMemcpyDeviceToHost), "copy re")) return 1;
    if (!ok(cudaMemcpy(h_im.data(), d_im, total * sizeof(float), cudaMemcpyDeviceToHost), "copy im")) return 1;

    double power = 0.0, mag = 0.0;
    for (size_t i = 0; i < total; ++i) {
        double p = (double)h_re[i] * h_re[i] + (double)h_im[i] * h_im[i];
        power += p;
        mag += std::sqrt(p);
    }
    printf("dft: %d signals of %d, total power %.3f, magnitude sum %.3f\n", signals, n, power, mag);

    cudaFree(d_x);
    cudaFree(d_re);
    cudaFree(d_im);
    return 0;
}
