// Symmetric part of a square matrix: S = (A + A^T) / 2, out of place.
// Thread (i, j) reads A[i][j] (coalesced along j) and A[j][i] (a column walk,
// strided by n across the warp).
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define N_DIM 8192u

static bool ok(cudaError_t e, const char* what)
{
    if (e != cudaSuccess) {
        std::fprintf(stderr, "error: %s: %s\n", what, cudaGetErrorString(e));
        return false;
    }
    return true;
}

__global__ void symmetrize(const float* A, float* S, unsigned int n)
{
    unsigned int j = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < n && j < n)
        S[(size_t)i * n + j] = 0.5f * (A[(size_t)i * n + j] + A[(size_t)j * n + i]);
}

int main()
{
    const unsigned int n = N_DIM;
    const size_t elems = (size_t)n * n;

    // Multiples of 1/4 in [-16, 16): (a + b) / 2 is exact.
    std::vector<float> hA(elems), hS(elems);
    for (unsigned int i = 0; i < n; ++i)
        for (unsigned int j = 0; j < n; ++j) {
            unsigned int h = i * 2654435761u + j * 40503u + (i ^ j);
            h ^= h >> 13;
            hA[(size_t)i * n + j] = (float)((int)(h % 128u) - 64) * 0.25f;
        }

    float *dA = nullptr, *dS = nullptr;
    if (!ok(cudaMalloc(&dA, elems * sizeof(float)), "cudaMalloc A")) return 1;
    if (!ok(cudaMalloc(&dS, elems * sizeof(float)), "cudaMalloc S")) return 1;
    if (!ok(cudaMemcpy(dA, hA.data(), elems * sizeof(float), cudaMemcpyHostToDevice), "copy A")) return 1;

    dim3 threads(16, 16);
    dim3 blocks((n + threads.x - 1) / threads.x, (n + threads.y - 1) / threads.y);
    symmetrize<<<blocks, threads>>>(dA, dS, n);
    if (!ok(cudaGetLastError(), "launch")) return 1;
    if (!ok(cudaDeviceSynchronize(), "kernel")) return 1;
    if (!ok(cudaMemcpy(hS.data(), dS, elems * sizeof(float), cudaMemcpyDeviceToHost), "copy S")) return 1;

    size_t bad = 0;
    double checksum = 0.0;
    for (unsigned int i = 0; i < n; ++i) {
        for (unsigned int j = 0; j < n; ++j) {
            float ref = 0.5f * (hA[(size_t)i * n + j] + hA[(size_t)j * n + i]);
            float got = hS[(size_t)i * n + j];
            if (got != ref) {
                if (bad < 10)
                    std::printf("mismatch at (%u, %u): got %f expected %f\n", i, j, got, ref);
                ++bad;
            }
            checksum += (double)got * (double)((i + 2 * j) % 11 + 1);
        }
    }
    std::printf("symmetrize %ux%u: %zu mismatches\n", n, n, bad);
    std::printf("checksum %.6f\n", checksum);

    cudaFree(dA);
    cudaFree(dS);
    if (bad != 0) {
        std::printf("FAILED\n");
        return 1;
    }
    std::printf("OK\n");
    return 0;
}
