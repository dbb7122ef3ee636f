// Numerically stable softmax over each row of a rows x cols matrix, one
// thread per row: an online pass (running max, rescaled running sum), then
// a second pass writing exp(x - max) / sum.
// usage: softmax_cols_online [rows] [cols]
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <cuda_runtime.h>

__global__ void softmax_online(const float* input, float* output, int rows, int cols)
{
    int row = blockDim.x * blockIdx.x + threadIdx.x;
    if (row >= rows) return;
    const float* x = input + (size_t)row * cols;
    float* y = output + (size_t)row * cols;

    float m = -INFINITY;
    float s = 0.0f;
    for (int j = 0; j < cols; j++) {
        float v = x[j];
        float m_new = fmaxf(m, v);
        s = s * expf(m - m_new) + expf(v - m_new);
        m = m_new;
    }
    float inv = 1.0f / s;
    for (int j = 0; j < cols; j++)
        y[j] = expf(x[j] - m) * inv;
}

int main(int argc, char** argv)
{
    int rows = (argc > 1) ? atoi(argv[1]) : 4096;
    int cols = (argc > 2) ? atoi(argv[2]) : 2048;
    size_t count = (size_t)rows * cols;

    float* h_in = (float*)malloc(count * sizeof(float));
    float* h_out = (float*)malloc(count * sizeof(float));
    for (size_t i = 0; i < count; i++)
        h_in[i] = (float)((i * 7) % 13) / 13.0f * 8.0f - 4.0f + (float)((i / cols) % 5);

    float *d_in, *d_out;
    cudaMalloc(&d_in, count * sizeof(float));
    cudaMalloc(&d_out, count * sizeof(float));
    cudaMemcpy(d_in, h_in, count * sizeof(float), cudaMemcpyHostToDevice);

    int threadsPerBlock = 128;
    int blocksPerGrid = (rows + threadsPerBlock - 1) / threadsPerBlock;
    softmax_online<<<blocksPerGrid, threadsPerBlock>>>(d_in, d_out, rows, cols);
    cudaDeviceSynchronize();

    cudaMemcpy(h_out, d_out, count * sizeof(float), cudaMemcpyDeviceToHost);
    double checksum = 0.0;
    for (size_t i = 0; i < count; i++)
        checksum += (double)h_out[i] * (double)(i % cols);
    printf("softmax_online %d x %d checksum %.6f\n", rows, cols, checksum);

    cudaFree(d_in);
    cudaFree(d_out);
    free(h_in);
    free(h_out);
    return 0;
}
