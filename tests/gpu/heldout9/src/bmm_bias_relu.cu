// Batched linear layer with a fused bias + ReLU epilogue:
//   C[b] = relu(A[b] * B[b] + bias)      for b = 0 .. BATCH-1
// A[b] is M x K, B[b] is K x N and C[b] is M x N, all row-major and packed
// back to back in one allocation each (strides M*K, K*N and M*N floats, the
// way a strided-batched GEMM takes them).
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_TRY(call)                                                      \
    do {                                                                    \
        cudaError_t err_ = (call);                                          \
        if (err_ != cudaSuccess) {                                          \
            std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__,        \
                         __LINE__, #call, cudaGetErrorString(err_));        \
            std::exit(EXIT_FAILURE);                                        \
        }                                                                   \
    } while (0)

__global__ void bmm_bias_relu(const float* A, long long strideA,
                              const float* B, long long strideB,
                              const float* bias,
                              float* C, long long strideC,
                              int M, int N, int K)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int b = blockIdx.z;
    if (row >= M || col >= N) return;

    const float* a = A + b * strideA + (long long)row * K;
    const float* bm = B + b * strideB;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
        acc += a[k] * bm[(long long)k * N + col];
    acc += bias[col];
    C[b * strideC + (long long)row * N + col] = acc > 0.0f ? acc : 0.0f;
}

// Small multiples of 1/8 (A) and 1/4 (B): every product and partial sum is
// exact in fp32, so the host reference is compared with ==.
static float pattern(size_t i, uint32_t mul, uint32_t mod, float step)
{
    uint32_t h = (uint32_t)i * mul + 0x9e3779b9u;
    h ^= h >> 15;
    return (float)((int)(h % mod) - (int)(mod / 2)) * step;
}

int main()
{
    const int BATCH = 8, M = 1024, N = 1280, K = 768;
    const long long strideA = (long long)M * K;
    const long long strideB = (long long)K * N;
    const long long strideC = (long long)M * N;

    std::vector<float> hA(BATCH * strideA), hB(BATCH * strideB), hBias(N);
    std::vector<float> hC(BATCH * strideC);
    for (size_t i = 0; i < hA.size(); ++i) hA[i] = pattern(i, 2654435761u, 17, 0.125f);
    for (size_t i = 0; i < hB.size(); ++i) hB[i] = pattern(i, 2246822519u, 9, 0.25f);
    for (int j = 0; j < N; ++j) hBias[j] = (float)((j * 7) % 11 - 3) * 0.5f;

    float *dA, *dB, *dBias, *dC;
    CUDA_TRY(cudaMalloc(&dA, hA.size() * sizeof(float)));
    CUDA_TRY(cudaMalloc(&dB, hB.size() * sizeof(float)));
    CUDA_TRY(cudaMalloc(&dBias, hBias.size() * sizeof(float)));
    CUDA_TRY(cudaMalloc(&dC, hC.size() * sizeof(float)));
    CUDA_TRY(cudaMemcpy(dA, hA.data(), hA.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_TRY(cudaMemcpy(dB, hB.data(), hB.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_TRY(cudaMemcpy(dBias, hBias.data(), hBias.size() * sizeof(float), cudaMemcpyHostToDevice));

    dim3 block(16, 16);
    dim3 grid((N + block.x - 1) / block.x, (M + block.y - 1) / block.y, BATCH);
    bmm_bias_relu<<<grid, block>>>(dA, strideA, dB, strideB, dBias, dC, strideC, M, N, K);
    CUDA_TRY(cudaGetLastError());
    CUDA_TRY(cudaDeviceSynchronize());

    CUDA_TRY(cudaMemcpy(hC.data(), dC, hC.size() * sizeof(float), cudaMemcpyDeviceToHost));

    // Spot checks: the four corners of every batch plus 256 hashed positions.
    int bad = 0, checked = 0, positive = 0;
    for (int s = 0; s < BATCH * 4 + 256; ++s) {
        int b, r, c;
        if (s < BATCH * 4) {
            b = s / 4;
            r = (s & 1) ? M - 1 : 0;
            c = (s & 2) ? N - 1 : 0;
        } else {
            uint32_t h = (uint32_t)s * 2654435761u;
            b = (int)(h % BATCH);
            r = (int)((h >> 8) % M);
            c = (int)((h >> 3) % N);
        }
        const float* a = &hA[b * strideA + (long long)r * K];
        const float* bm = &hB[b * strideB];
        double ref = 0.0;
        for (int k = 0; k < K; ++k) ref += (double)a[k] * bm[(long long)k * N + c];
        ref += hBias[c];
        if (ref < 0.0) ref = 0.0;
        float got = hC[b * strideC + (long long)r * N + c];
        ++checked;
        if (ref > 0.0) ++positive;
        if ((double)got != ref) {
            if (bad < 10)
                std::printf("mismatch at b=%d r=%d c=%d: got %.6f expected %.6f\n", b, r, c, got, ref);
            ++bad;
        }
    }

    double checksum = 0.0;
    for (size_t i = 0; i < hC.size(); ++i) checksum += hC[i] * (double)((i % 13) + 1);
    std::printf("bmm_bias_relu %dx(%dx%dx%d): checked %d (%d positive), %d mismatches\n",
                BATCH, M, N, K, checked, positive, bad);
    std::printf("checksum %.6f\n", checksum);

    CUDA_TRY(cudaFree(dA));
    CUDA_TRY(cudaFree(dB));
    CUDA_TRY(cudaFree(dBias));
    CUDA_TRY(cudaFree(dC));

    if (bad != 0) {
        std::printf("FAILED\n");
        return 1;
    }
    std::printf("OK\n");
    return 0;
}
