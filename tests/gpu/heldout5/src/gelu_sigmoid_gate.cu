// Two element-wise launches over 64M floats: a producer computes
// h = a * x + b, then the gate kernel computes out = gelu(h) * sigmoid(g).
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

__device__ float gelu_tanh(float v)
{
    const float k = 0.7978845608f; // sqrt(2/pi)
    return 0.5f * v * (1.0f + tanhf(k * (v + 0.044715f * v * v * v)));
}

__device__ float sigmoid(float v)
{
    return 1.0f / (1.0f + expf(-v));
}

__global__ void affine_kernel(float* h, const float* x, float a, float b, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        h[i] = a * x[i] + b;
}

__global__ void gelu_gate_kernel(float* out, const float* h, const float* g, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = gelu_tanh(h[i]) * sigmoid(g[i]);
}

int main(void)
{
    size_t n = (size_t)1 << 26;
    size_t bytes = n * sizeof(float);

    float* x = (float*)malloc(bytes);
    float* g = (float*)malloc(bytes);
    float* out = (float*)malloc(bytes);
    for (size_t i = 0; i < n; i++) {
        x[i] = 3.0f * sinf((float)(i % 65536) * 0.001f);
        g[i] = 2.0f * cosf((float)(i % 40000) * 0.0003f);
    }

    float *d_x, *d_g, *d_h, *d_out;
    cudaMalloc(&d_x, bytes);
    cudaMalloc(&d_g, bytes);
    cudaMalloc(&d_h, bytes);
    cudaMalloc(&d_out, bytes);
    cudaMemcpy(d_x, x, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_g, g, bytes, cudaMemcpyHostToDevice);

    unsigned int block = 256;
    unsigned int grid = (unsigned int)((n + block - 1) / block);
    affine_kernel<<<grid, block>>>(d_h, d_x, 0.8f, 0.1f, n);
    gelu_gate_kernel<<<grid, block>>>(d_out, d_h, d_g, n);
    cudaDeviceSynchronize();
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) {
        fprintf(stderr, "kernel failed: %s\n", cudaGetErrorString(err));
        return 1;
    }

    cudaMemcpy(out, d_out, bytes, cudaMemcpyDeviceToHost);
    double sum = 0.0;
    for (size_t i = 0; i < n; i++)
        sum += out[i];
    printf("checksum: %.6f (out[12345] = %.6f)\n", sum, out[12345]);

    cudaFree(d_x);
    cudaFree(d_g);
    cudaFree(d_h);
    cudaFree(d_out);
    free(x);
    free(g);
    free(out);
    return 0;
}
