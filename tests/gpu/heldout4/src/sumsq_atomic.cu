// Sum of squares of a float array into a single global float: grid-stride
// loop, one atomicAdd per element.
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

#define CHECK(call)                                                           \
    do {                                                                      \
        cudaError_t err = (call);                                             \
        if (err != cudaSuccess) {                                             \
            fprintf(stderr, "CUDA error in %s at line %d: %s\n", #call,       \
                    __LINE__, cudaGetErrorString(err));                       \
            exit(1);                                                          \
        }                                                                     \
    } while (0)

__global__ void sum_squares(int n, const float* x, float* sum)
{
    int stride = blockDim.x * gridDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        float v = x[i];
        atomicAdd(sum, v * v);
    }
}

int main(int argc, char** argv)
{
    int n = 1 << 24;
    if (argc > 1) n = atoi(argv[1]);
    printf("sum_squares: n=%d\n", n);

    float* h_x = (float*)malloc((size_t)n * sizeof(float));
    for (int i = 0; i < n; i++)
        h_x[i] = (float)((i % 255) - 127) / 128.0f;

    float* d_x;
    float* d_sum;
    CHECK(cudaMalloc(&d_x, (size_t)n * sizeof(float)));
    CHECK(cudaMalloc(&d_sum, sizeof(float)));
    CHECK(cudaMemcpy(d_x, h_x, (size_t)n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_sum, 0, sizeof(float)));

    int blockSize = 256;
    int numBlocks = 1024;
    sum_squares<<<numBlocks, blockSize>>>(n, d_x, d_sum);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());

    float h_sum = 0.0f;
    CHECK(cudaMemcpy(&h_sum, d_sum, sizeof(float), cudaMemcpyDeviceToHost));
    double ref = 0.0;
    for (int i = 0; i < n; i++)
        ref += (double)h_x[i] * h_x[i];
    printf("checksum: %.3f (host reference %.3f, rel err %.2e)\n",
           (double)h_sum, ref, fabs((double)h_sum - ref) / ref);

    cudaFree(d_x);
    cudaFree(d_sum);
    free(h_x);
    return 0;
}
