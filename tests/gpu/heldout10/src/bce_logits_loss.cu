// Mean binary cross-entropy with logits, reduced to one scalar with a double atomicAdd per element.
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>

#define N_ELEMS (1u << 22)
#define BLOCK 256

#define CUDA_CHECK(expr)                                                   \
    do {                                                                   \
        cudaError_t status_ = (expr);                                      \
        if (status_ != cudaSuccess) {                                      \
            fprintf(stderr, "%s failed at line %d: %s\n", #expr, __LINE__, \
                    cudaGetErrorName(status_));                            \
            return 1;                                                      \
        }                                                                  \
    } while (0)

static unsigned int hash_index(unsigned int x)
{
    x = ((x >> 16) ^ x) * 0x45d9f3bU;
    x = ((x >> 16) ^ x) * 0x45d9f3bU;
    x = (x >> 16) ^ x;
    return x;
}

// numerically stable: max(x, 0) - x * y + log(1 + exp(-|x|))
__device__ float bce_with_logits(float x, float y)
{
    return fmaxf(x, 0.0f) - x * y + log1pf(expf(-fabsf(x)));
}

__global__ void bce_loss_sum(const float* logits, const float* targets, double* total, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float l = bce_with_logits(logits[i], targets[i]);
        atomicAdd(total, (double)l);
    }
}

int main()
{
    const unsigned int n = N_ELEMS;
    std::vector<float> logits(n), targets(n);
    for (unsigned int i = 0; i < n; ++i) {
        unsigned int h = hash_index(i);
        logits[i] = (float)((int)(h % 257u) - 128) / 16.0f;   // [-8, 8]
        targets[i] = ((h >> 12) % 3u == 0u) ? 1.0f : 0.0f;
    }

    float* d_logits = nullptr;
    float* d_targets = nullptr;
    double* d_total = nullptr;
    CUDA_CHECK(cudaMalloc(&d_logits, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_targets, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_total, sizeof(double)));
    CUDA_CHECK(cudaMemcpy(d_logits, logits.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_targets, targets.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_total, 0, sizeof(double)));

    unsigned int blocks = (n + BLOCK - 1) / BLOCK;
    bce_loss_sum<<<blocks, BLOCK>>>(d_logits, d_targets, d_total, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());

    double total = 0.0;
    CUDA_CHECK(cudaMemcpy(&total, d_total, sizeof(double), cudaMemcpyDeviceToHost));

    double ref = 0.0;
    for (unsigned int i = 0; i < n; ++i) {
        double x = logits[i], y = targets[i];
        ref += std::fmax(x, 0.0) - x * y + std::log1p(std::exp(-std::fabs(x)));
    }

    double mean = total / n;
    double ref_mean = ref / n;
    double rel = std::fabs(mean - ref_mean) / std::fabs(ref_mean);
    int mismatches = rel > 1e-5 ? 1 : 0;

    printf("bce_loss_sum: n = %u, mean loss %.9f (reference %.9f, rel err %.3e), mismatches %d\n",
           n, mean, ref_mean, rel, mismatches);
    printf("checksum %.6f\n", total);

    CUDA_CHECK(cudaFree(d_logits));
    CUDA_CHECK(cudaFree(d_targets));
    CUDA_CHECK(cudaFree(d_total));
    return mismatches;
}
