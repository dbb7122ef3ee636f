// Softmax cross-entropy loss per row of 32768 x 1024 logits with integer
// labels: loss[r] = logsumexp(logits[r]) - logits[r][label[r]].
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

__device__ float log_sum_exp(const float* row, int V)
{
    float mx = -INFINITY;
    for (int j = 0; j < V; j++)
        mx = fmaxf(mx, row[j]);
    float s = 0.0f;
    for (int j = 0; j < V; j++)
        s += expf(row[j] - mx);
    return mx + logf(s);
}

__global__ void cross_entropy_rows(const float* logits, const int* labels,
                                   float* loss, int N, int V)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= N)
        return;
    const float* row = logits + (size_t)r * V;
    loss[r] = log_sum_exp(row, V) - row[labels[r]];
}

int main()
{
    const int N = 32768;  // rows (batch * tokens)
    const int V = 1024;   // classes
    size_t n_logits = (size_t)N * V;

    float* logits = (float*)malloc(n_logits * sizeof(float));
    int* labels = (int*)malloc(N * sizeof(int));
    float* loss = (float*)malloc(N * sizeof(float));
    for (int r = 0; r < N; r++) {
        labels[r] = (r * 131 + 7) % V;
        for (int j = 0; j < V; j++)
            logits[(size_t)r * V + j] = 4.0f * sinf(0.001f * (float)(r * 3 + j * 17));
    }

    float *d_logits, *d_loss;
    int* d_labels;
    cudaMalloc(&d_logits, n_logits * sizeof(float));
    cudaMalloc(&d_labels, N * sizeof(int));
    cudaMalloc(&d_loss, N * sizeof(float));
    cudaMemcpy(d_logits, logits, n_logits * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_labels, labels, N * sizeof(int), cudaMemcpyHostToDevice);

    int block = 128;
    int grid = (N + block - 1) / block;
    cross_entropy_rows<<<grid, block>>>(d_logits, d_labels, d_loss, N, V);
    cudaDeviceSynchronize();
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) {
        fprintf(stderr, "cross_entropy_rows: %s\n", cudaGetErrorString(err));
        return 1;
    }

    cudaMemcpy(loss, d_loss, N * sizeof(float), cudaMemcpyDeviceToHost);
    double total = 0.0;
    for (int r = 0; r < N; r++)
        total += loss[r];
    printf("mean loss %.6f (sum %.4f, loss[0] %.6f)\n", total / N, total, loss[0]);

    cudaFree(d_logits);
    cudaFree(d_labels);
    cudaFree(d_loss);
    free(logits);
    free(labels);
    free(loss);
    return 0;
}
