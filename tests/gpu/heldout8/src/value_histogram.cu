// Histogram of float samples into NBINS equal-width bins over [LO, HI).
// Samples below LO go into bin 0, samples at or above HI into the last bin.
#include <cstdio>
#include <cstdlib>
#include <vector>

#define N_SAMPLES (1 << 24)
#define NBINS 32
#define LO (-2.0f)
#define HI 2.0f

__global__ void histogram_float(const float* samples, unsigned int* bins, size_t n, float lo, float scale)
{
    size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= n) return;

    int b = (int)((samples[idx] - lo) * scale);
    if (b < 0) b = 0;
    if (b >= NBINS) b = NBINS - 1;
    atomicAdd(&bins[b], 1u);
}

int main()
{
    const size_t n = N_SAMPLES;
    std::vector<float> samples(n);
    for (size_t i = 0; i < n; i++) {
        // multiplicative hash, then a value in [-2.5, 2.5) on a 1/1024 grid;
        // folding two hashes makes the middle bins busier than the edges
        unsigned int h1 = (unsigned int)i * 2654435761u;
        unsigned int h2 = ((unsigned int)i ^ 0x5bd1e995u) * 2246822519u;
        int k = (int)((h1 >> 16) % 2560u) + (int)((h2 >> 16) % 2560u);
        samples[i] = (float)k / 1024.0f - 2.5f;
    }

    float* d_samples;
    unsigned int* d_bins;
    cudaMalloc(&d_samples, n * sizeof(float));
    cudaMalloc(&d_bins, NBINS * sizeof(unsigned int));
    cudaMemcpy(d_samples, samples.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemset(d_bins, 0, NBINS * sizeof(unsigned int));

    float scale = NBINS / (HI - LO);
    int threads = 256;
    int blocks = (int)((n + threads - 1) / threads);
    histogram_float<<<blocks, threads>>>(d_samples, d_bins, n, LO, scale);

    cudaError_t err = cudaDeviceSynchronize();
    if (err == cudaSuccess) err = cudaGetLastError();
    if (err != cudaSuccess) {
        fprintf(stderr, "kernel failed: %s\n", cudaGetErrorString(err));
        return 1;
    }

    std::vector<unsigned int> bins(NBINS);
    cudaMemcpy(bins.data(), d_bins, NBINS * sizeof(unsigned int), cudaMemcpyDeviceToHost);

    // host reference
    std::vector<unsigned int> ref(NBINS, 0);
    for (size_t i = 0; i < n; i++) {
        int b = (int)((samples[i] - LO) * scale);
        if (b < 0) b = 0;
        if (b >= NBINS) b = NBINS - 1;
        ref[b]++;
    }

    unsigned long long total = 0, weighted = 0;
    int bad = 0;
    for (int b = 0; b < NBINS; b++) {
        total += bins[b];
        weighted += (unsigned long long)bins[b] * (b + 1);
        if (bins[b] != ref[b]) {
            printf("mismatch in bin %d: got %u expected %u\n", b, bins[b], ref[b]);
            bad++;
        }
    }
    printf("total = %llu, checksum = %llu\n", total, weighted);

    cudaFree(d_samples);
    cudaFree(d_bins);

    if (bad || total != n) {
        printf("FAILED\n");
        return 1;
    }
    printf("OK\n");
    return 0;
}
