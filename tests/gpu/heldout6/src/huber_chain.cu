// Element-wise Huber loss in two steps: d = pred - target, then loss = huber(d).
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

#define CHECK_LAST(msg)                                                         \
    {                                                                           \
        cudaError_t e = cudaGetLastError();                                     \
        if (e != cudaSuccess) {                                                 \
            printf("%s: %s\n", msg, cudaGetErrorString(e));                     \
            exit(1);                                                            \
        }                                                                       \
    }

__global__ void diff_kernel(const float *pred, const float *target, float *d, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        d[i] = pred[i] - target[i];
}

__global__ void huber_kernel(const float *d, float *loss, float delta, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        float a = fabsf(d[i]);
        if (a <= delta)
            loss[i] = 0.5f * a * a;
        else
            loss[i] = delta * (a - 0.5f * delta);
    }
}

int main()
{
    const int n = 32 * 1024 * 1024;
    const float delta = 1.0f;
    size_t bytes = (size_t)n * sizeof(float);

    float *pred = (float *)malloc(bytes);
    float *target = (float *)malloc(bytes);
    float *loss = (float *)malloc(bytes);
    for (int i = 0; i < n; i++) {
        pred[i] = 2.5f * sinf(0.001f * i);
        target[i] = 0.5f * cosf(0.0007f * i) + (float)(i % 11) * 0.05f;
    }

    float *d_pred, *d_target, *d_diff, *d_loss;
    cudaMalloc(&d_pred, bytes);
    cudaMalloc(&d_target, bytes);
    cudaMalloc(&d_diff, bytes);
    cudaMalloc(&d_loss, bytes);
    CHECK_LAST("cudaMalloc");
    cudaMemcpy(d_pred, pred, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_target, target, bytes, cudaMemcpyHostToDevice);
    CHECK_LAST("copy in");

    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    int threads = 256;
    int blocks = prop.multiProcessorCount * 8;

    diff_kernel<<<blocks, threads>>>(d_pred, d_target, d_diff, n);
    CHECK_LAST("diff_kernel");
    huber_kernel<<<blocks, threads>>>(d_diff, d_loss, delta, n);
    CHECK_LAST("huber_kernel");
    cudaDeviceSynchronize();
    CHECK_LAST("sync");

    cudaMemcpy(loss, d_loss, bytes, cudaMemcpyDeviceToHost);
    CHECK_LAST("copy out");

    double total = 0.0;
    int quadratic = 0;
    for (int i = 0; i < n; i++) {
        total += loss[i];
        if (loss[i] < 0.5f * delta * delta) quadratic++;
    }
    printf("n=%d delta=%.2f\n", n, delta);
    printf("mean loss %.8f, sum %.4f, %d in the quadratic zone\n", total / n, total, quadratic);

    cudaFree(d_pred);
    cudaFree(d_target);
    cudaFree(d_diff);
    cudaFree(d_loss);
    free(pred);
    free(target);
    free(loss);
    return 0;
}
