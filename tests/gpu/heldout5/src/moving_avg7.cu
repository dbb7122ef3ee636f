// Trailing moving average over a window of 7 of 64M floats, computed
// directly (no prefix sums): out[i] = mean(in[i-6 .. i]), fewer terms at
// the start of the array.
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

#define WINDOW 7

#define CHECK(call)                                                         \
    if ((call) != cudaSuccess) {                                            \
        fprintf(stderr, "CUDA call failed at line %d: %s\n", __LINE__,      \
                cudaGetErrorString(cudaGetLastError()));                    \
        return 1;                                                           \
    }

__global__ void moving_average(const float* __restrict__ in,
                               float* __restrict__ out, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;

    float sum = 0.0f;
    int cnt = 0;
    for (int k = 0; k < WINDOW; k++) {
        long long j = i - k;
        if (j >= 0) {
            sum += in[j];
            cnt++;
        }
    }
    out[i] = sum / cnt;
}

int main()
{
    const long long n = 1LL << 26;
    const size_t bytes = (size_t)n * sizeof(float);

    float* h_in = (float*)malloc(bytes);
    float* h_out = (float*)malloc(bytes);
    for (long long i = 0; i < n; i++)
        h_in[i] = sinf((float)(i % 100000) * 0.001f) + 0.5f * cosf((float)(i % 7919) * 0.01f);

    float *d_in, *d_out;
    CHECK(cudaMalloc(&d_in, bytes));
    CHECK(cudaMalloc(&d_out, bytes));
    CHECK(cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice));

    int threadsPerBlock = 256;
    int numBlocks = (int)((n + threadsPerBlock - 1) / threadsPerBlock);
    moving_average<<<numBlocks, threadsPerBlock>>>(d_in, d_out, n);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());

    CHECK(cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost));
    double checksum = 0.0;
    for (long long i = 0; i < n; i++)
        checksum += h_out[i];
    printf("moving average checksum %.6f out[0]=%.6f out[100]=%.6f\n",
           checksum, h_out[0], h_out[100]);

    cudaFree(d_in);
    cudaFree(d_out);
    free(h_in);
    free(h_out);
    return 0;
}
