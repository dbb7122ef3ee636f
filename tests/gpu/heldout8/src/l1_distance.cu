// L1 (Manhattan) distance between two long vectors: sum_i |a[i] - b[i]|.
// Each thread accumulates a grid-stride slice, the block reduces the partial
// sums in shared memory, and thread 0 adds the block's sum to the result.
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>

#define N (1 << 25)
#define BLOCK 256
#define GRID 1024

#define CHECK(x) { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    printf("CUDA failure %s:%d: '%s'\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } }

__global__ void l1_distance(const float* __restrict__ a, const float* __restrict__ b,
                            float* __restrict__ result, unsigned int n)
{
    __shared__ float sdata[BLOCK];

    unsigned int tid = threadIdx.x;
    float local = 0.0f;
    for (unsigned int i = blockIdx.x * blockDim.x + tid; i < n; i += blockDim.x * gridDim.x)
        local += fabsf(a[i] - b[i]);

    sdata[tid] = local;
    __syncthreads();

    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }

    if (tid == 0)
        atomicAdd(result, sdata[0]);
}

int main()
{
    std::vector<float> a(N), b(N);
    for (unsigned int i = 0; i < N; i++) {
        a[i] = (float)(i % 17) * 0.125f;
        b[i] = (float)((i * 5) % 23) * 0.0625f;
    }

    float *d_a, *d_b, *d_result;
    CHECK(cudaMalloc(&d_a, N * sizeof(float)));
    CHECK(cudaMalloc(&d_b, N * sizeof(float)));
    CHECK(cudaMalloc(&d_result, sizeof(float)));
    CHECK(cudaMemcpy(d_a, a.data(), N * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_b, b.data(), N * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_result, 0, sizeof(float)));

    l1_distance<<<GRID, BLOCK>>>(d_a, d_b, d_result, N);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());

    float result = 0.0f;
    CHECK(cudaMemcpy(&result, d_result, sizeof(float), cudaMemcpyDeviceToHost));

    // reference in double; the GPU sums in float in a different order,
    // so compare with a relative tolerance
    double ref = 0.0;
    for (unsigned int i = 0; i < N; i++)
        ref += fabs((double)a[i] - (double)b[i]);

    double rel = fabs((double)result - ref) / ref;
    printf("L1 distance = %.3f (host %.3f, rel err %.2e)\n", result, ref, rel);

    CHECK(cudaFree(d_a));
    CHECK(cudaFree(d_b));
    CHECK(cudaFree(d_result));

    if (rel > 1e-4) {
        printf("mismatch: relative error too large\n");
        return 1;
    }
    printf("OK\n");
    return 0;
}
