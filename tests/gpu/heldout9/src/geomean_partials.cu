// Geometric mean of a large vector of positive floats, computed as
// exp(mean(log x)).  The kernel reduces log(x) inside each block with a
// shared-memory tree (dynamic shared memory, sequential addressing) and
// writes one partial sum per block; the host adds the partials.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cmath>
#include <vector>
#include <cuda_runtime.h>

__global__ void block_log_sums(const float* x, float* partial, size_t n)
{
    extern __shared__ float sdata[];
    unsigned int tid = threadIdx.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + tid;

    sdata[tid] = (i < n) ? logf(x[i]) : 0.0f;
    __syncthreads();

    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        partial[blockIdx.x] = sdata[0];
}

int main()
{
    auto check = [](cudaError_t e, const char* what) {
        if (e != cudaSuccess) {
            std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
            std::exit(1);
        }
    };

    const size_t n = size_t(3) << 26;                 // 201M samples
    const unsigned int threads = 512;
    const unsigned int blocks = (unsigned int)((n + threads - 1) / threads);

    // x = 1 + k / 2048 for a hashed k in [0, 4096): values in [1, 3).
    std::vector<float> hx(n);
    std::vector<uint32_t> count(4096, 0);
    for (size_t i = 0; i < n; ++i) {
        uint32_t h = (uint32_t)i * 0x27d4eb2du;
        h ^= h >> 15;
        uint32_t k = h & 4095u;
        hx[i] = 1.0f + (float)k / 2048.0f;
        ++count[k];
    }

    float *dx, *dpartial;
    check(cudaMalloc(&dx, n * sizeof(float)), "cudaMalloc x");
    check(cudaMalloc(&dpartial, blocks * sizeof(float)), "cudaMalloc partial");
    check(cudaMemcpy(dx, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice), "copy x");

    block_log_sums<<<blocks, threads, threads * sizeof(float)>>>(dx, dpartial, n);
    check(cudaGetLastError(), "launch");
    check(cudaDeviceSynchronize(), "kernel");

    std::vector<float> hpartial(blocks);
    check(cudaMemcpy(hpartial.data(), dpartial, blocks * sizeof(float), cudaMemcpyDeviceToHost),
          "copy partials");

    double gpu_sum = 0.0;
    for (unsigned int b = 0; b < blocks; ++b) gpu_sum += hpartial[b];

    // Host reference from the value counts (each distinct value's log once).
    double ref_sum = 0.0;
    for (uint32_t k = 0; k < 4096; ++k)
        ref_sum += (double)count[k] * std::log((double)(1.0f + (float)k / 2048.0f));

    double gpu_gm = std::exp(gpu_sum / (double)n);
    double ref_gm = std::exp(ref_sum / (double)n);
    double rel = std::fabs(gpu_sum - ref_sum) / ref_sum;

    // Per-block check on a few blocks (512 logs each, float tree vs double).
    int bad_blocks = 0;
    for (unsigned int b = 0; b < blocks; b += 4099) {
        double s = 0.0;
        for (unsigned int t = 0; t < threads; ++t) s += std::log((double)hx[(size_t)b * threads + t]);
        if (!(std::fabs(hpartial[b] - s) <= 1e-5 * s)) {
            if (bad_blocks < 10)
                std::printf("block %u: got %.6f expected %.6f\n", b, hpartial[b], s);
            ++bad_blocks;
        }
    }

    std::printf("geomean n=%zu: sum log gpu %.6f ref %.6f (rel %.3e), geometric mean gpu %.8f ref %.8f, %d bad blocks\n",
                n, gpu_sum, ref_sum, rel, gpu_gm, ref_gm, bad_blocks);
    std::printf("checksum %.6f\n", gpu_sum);

    check(cudaFree(dx), "free x");
    check(cudaFree(dpartial), "free partial");

    if (!(rel <= 1e-5) || bad_blocks != 0) {
        std::printf("FAILED\n");
        return 1;
    }
    std::printf("OK\n");
    return 0;
}
