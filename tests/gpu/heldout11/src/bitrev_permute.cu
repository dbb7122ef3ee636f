// Bit-reversal reordering of 2^25 complex samples, the first stage of an
// iterative radix-2 FFT: out[reverse(i)] = in[i].
#include <cstdio>
#include <cuda_runtime.h>

__device__ unsigned int reverse_bits(unsigned int v, int bits)
{
    unsigned int r = 0;
    for (int b = 0; b < bits; ++b) {
        r = (r << 1) | (v & 1u);
        v >>= 1;
    }
    return r;
}

__global__ void bit_reverse_permute(const float2* in, float2* out, unsigned int n, int log2n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned int j = reverse_bits(i, log2n);
        out[j] = in[i];
    }
}

int main()
{
    const int log2n = 25;
    const unsigned int n = 1u << log2n;

    float2* h_in = new float2[n];
    float2* h_out = new float2[n];
    for (unsigned int i = 0; i < n; ++i) {
        h_in[i].x = (float)(i % 1000u) * 0.001f;
        h_in[i].y = (float)((i * 37u) % 997u) * 0.01f - 5.0f;
    }

    float2 *d_in = nullptr, *d_out = nullptr;
    cudaMalloc(&d_in, n * sizeof(float2));
    cudaMalloc(&d_out, n * sizeof(float2));
    cudaMemcpy(d_in, h_in, n * sizeof(float2), cudaMemcpyHostToDevice);

    unsigned int threads = 512;
    unsigned int blocks = (n + threads - 1) / threads;
    bit_reverse_permute<<<blocks, threads>>>(d_in, d_out, n, log2n);
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) {
        printf("launch error: %s\n", cudaGetErrorString(err));
        return 1;
    }
    err = cudaDeviceSynchronize();
    if (err != cudaSuccess) {
        printf("kernel error: %s\n", cudaGetErrorString(err));
        return 1;
    }

    cudaMemcpy(h_out, d_out, n * sizeof(float2), cudaMemcpyDeviceToHost);

    double sx = 0.0, sy = 0.0;
    for (unsigned int j = 0; j < n; ++j) {
        double w = (double)(j % 7u + 1u);
        sx += w * h_out[j].x;
        sy += w * h_out[j].y;
    }
    printf("bitrev: n = %u, checksum %.6f %.6f\n", n, sx, sy);

    cudaFree(d_in);
    cudaFree(d_out);
    delete[] h_in;
    delete[] h_out;
    return 0;
}
