// Two-step activation path of a weight-only-quantised layer output:
//   1. t = dequantize(q): int8 values times a per-group scale (groups of 128)
//   2. y = elu(t)       : t for t > 0, alpha * (exp(t) - 1) otherwise
// The float intermediate t is only consumed by the second kernel.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cmath>
#include <vector>
#include <cuda_runtime.h>

#define CHECK_CUDA(x) check_impl((x), #x, __FILE__, __LINE__)

static inline void check_impl(cudaError_t e, const char* expr, const char* file, int line)
{
    if (e != cudaSuccess) {
        std::fprintf(stderr, "%s:%d: %s -> %s (%s)\n", file, line, expr,
                     cudaGetErrorName(e), cudaGetErrorString(e));
        std::exit(EXIT_FAILURE);
    }
}

__global__ void dequantize_int8(const int8_t* q, const float* scales, float* t,
                                size_t n, int group)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    t[i] = (float)q[i] * scales[i / group];
}

__global__ void elu_kernel(const float* __restrict__ x, float* __restrict__ y,
                           float alpha, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = v > 0.0f ? v : alpha * expm1f(v);
    }
}

int main()
{
    const size_t n = size_t(1) << 27;      // 134M activations
    const int group = 128;
    const size_t ngroups = n / group;
    const float alpha = 1.0f;

    std::vector<int8_t> hq(n);
    std::vector<float> hscale(ngroups);
    for (size_t i = 0; i < n; ++i) {
        uint32_t h = (uint32_t)i * 2654435761u;
        hq[i] = (int8_t)(uint8_t)(h >> 24);
    }
    for (size_t g = 0; g < ngroups; ++g)
        hscale[g] = (float)(1 + (g * 5) % 7) / 64.0f;     // 1/64 .. 7/64

    int8_t* dq;
    float *dscale, *dt, *dy;
    CHECK_CUDA(cudaMalloc(&dq, n * sizeof(int8_t)));
    CHECK_CUDA(cudaMalloc(&dscale, ngroups * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&dt, n * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&dy, n * sizeof(float)));
    CHECK_CUDA(cudaMemcpy(dq, hq.data(), n * sizeof(int8_t), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(dscale, hscale.data(), ngroups * sizeof(float), cudaMemcpyHostToDevice));

    const int threads = 256;
    const unsigned int blocks = (unsigned int)((n + threads - 1) / threads);
    dequantize_int8<<<blocks, threads>>>(dq, dscale, dt, n, group);
    CHECK_CUDA(cudaGetLastError());
    elu_kernel<<<blocks, threads>>>(dt, dy, alpha, n);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaDeviceSynchronize());

    std::vector<float> hy(n);
    CHECK_CUDA(cudaMemcpy(hy.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost));

    // Host reference: every element of the first and last 64K, and every
    // 1021st element in between.
    size_t checked = 0, bad = 0;
    double max_err = 0.0;
    auto check_one = [&](size_t i) {
        double v = (double)((float)hq[i] * hscale[i / group]);
        double ref = v > 0.0 ? v : alpha * std::expm1(v);
        double err = std::fabs((double)hy[i] - ref);
        if (err > max_err) max_err = err;
        ++checked;
        if (!(err <= 1e-6 + 1e-6 * std::fabs(ref))) {      // also catches NaN
            if (bad < 10)
                std::printf("mismatch at %zu: got %.9g expected %.9g\n", i, hy[i], ref);
            ++bad;
        }
    };
    for (size_t i = 0; i < 65536; ++i) check_one(i);
    for (size_t i = 65536; i < n - 65536; i += 1021) check_one(i);
    for (size_t i = n - 65536; i < n; ++i) check_one(i);

    double checksum = 0.0;
    for (size_t i = 0; i < n; ++i) checksum += hy[i];
    std::printf("dequant_elu_chain n=%zu: checked %zu, max abs err %.3e, %zu mismatches\n",
                n, checked, max_err, bad);
    std::printf("checksum %.6f\n", checksum);

    CHECK_CUDA(cudaFree(dq));
    CHECK_CUDA(cudaFree(dscale));
    CHECK_CUDA(cudaFree(dt));
    CHECK_CUDA(cudaFree(dy));

    if (bad != 0) {
        std::printf("FAILED\n");
        return 1;
    }
    std::printf("OK\n");
    return 0;
}
