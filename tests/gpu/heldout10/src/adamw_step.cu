// One AdamW optimiser step over a flat parameter vector (param, m, v updated in place).
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cmath>
#include <vector>

#define CHECK_CUDA(call)                                                           \
    do {                                                                           \
        cudaError_t err_ = (call);                                                 \
        if (err_ != cudaSuccess) {                                                 \
            fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(err_),  \
                    __FILE__, __LINE__);                                           \
            std::exit(1);                                                          \
        }                                                                          \
    } while (0)

__global__ void adamw_step(float* param, const float* grad, float* m, float* v,
                           float lr, float beta1, float beta2, float eps, float weight_decay,
                           float bias_corr1, float bias_corr2, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;

    float g = grad[i];
    float mi = beta1 * m[i] + (1.0f - beta1) * g;
    float vi = beta2 * v[i] + (1.0f - beta2) * g * g;
    m[i] = mi;
    v[i] = vi;

    float m_hat = mi / bias_corr1;
    float v_hat = vi / bias_corr2;
    float p = param[i];
    param[i] = p - lr * (m_hat / (sqrtf(v_hat) + eps) + weight_decay * p);
}

static inline uint32_t hash2(uint32_t i, uint32_t salt)
{
    uint32_t x = i * 0x9e3779b9U + salt;
    x ^= x >> 16;
    x *= 0x85ebca6bU;
    x ^= x >> 13;
    x *= 0xc2b2ae35U;
    x ^= x >> 16;
    return x;
}

static bool close_enough(double got, double want, double abs_tol, double rel_tol)
{
    return std::fabs(got - want) <= abs_tol + rel_tol * std::fabs(want);
}

int main()
{
    const size_t n = (size_t)1 << 24;
    const float lr = 1e-3f, beta1 = 0.9f, beta2 = 0.999f, eps = 1e-8f, wd = 0.01f;
    const int step = 10;
    const float bc1 = (float)(1.0 - std::pow(0.9, step));
    const float bc2 = (float)(1.0 - std::pow(0.999, step));

    std::vector<float> p0(n), g0(n), m0(n), v0(n);
    for (size_t i = 0; i < n; ++i) {
        uint32_t ii = (uint32_t)i;
        p0[i] = (float)((int)(hash2(ii, 1u) % 2001u) - 1000) / 500.0f;
        g0[i] = (float)((int)(hash2(ii, 2u) % 2001u) - 1000) / 1000.0f;
        m0[i] = (float)((int)(hash2(ii, 3u) % 2001u) - 1000) / 100000.0f;
        v0[i] = (float)(hash2(ii, 4u) % 1000u + 1u) / 100000.0f;
    }

    float *d_p, *d_g, *d_m, *d_v;
    CHECK_CUDA(cudaMalloc(&d_p, n * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&d_g, n * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&d_m, n * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&d_v, n * sizeof(float)));
    CHECK_CUDA(cudaMemcpy(d_p, p0.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(d_g, g0.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(d_m, m0.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(d_v, v0.data(), n * sizeof(float), cudaMemcpyHostToDevice));

    const unsigned int threads = 256;
    const unsigned int blocks = (unsigned int)((n + threads - 1) / threads);
    adamw_step<<<blocks, threads>>>(d_p, d_g, d_m, d_v, lr, beta1, beta2, eps, wd, bc1, bc2, n);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaDeviceSynchronize());

    std::vector<float> p1(n), m1(n), v1(n);
    CHECK_CUDA(cudaMemcpy(p1.data(), d_p, n * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(m1.data(), d_m, n * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(v1.data(), d_v, n * sizeof(float), cudaMemcpyDeviceToHost));

    long mismatches = 0;
    long checked = 0;
    for (size_t i = 0; i < n; ++i) {
        if (!(i < 4096 || i >= n - 4096 || i % 997 == 0)) continue;
        ++checked;
        double g = g0[i];
        double mi = (double)beta1 * m0[i] + (1.0 - (double)beta1) * g;
        double vi = (double)beta2 * v0[i] + (1.0 - (double)beta2) * g * g;
        double mh = mi / bc1, vh = vi / bc2;
        double p = p0[i];
        double pw = p - (double)lr * (mh / (std::sqrt(vh) + (double)eps) + (double)wd * p);
        bool ok = close_enough(m1[i], mi, 1e-7, 1e-5) && close_enough(v1[i], vi, 1e-10, 1e-5) &&
                  close_enough(p1[i], pw, 1e-6, 1e-5);
        if (!ok) {
            if (mismatches < 5)
                fprintf(stderr, "mismatch at %zu: p %g/%g m %g/%g v %g/%g\n", i, p1[i], pw, m1[i], mi, v1[i], vi);
            ++mismatches;
        }
    }

    double checksum = 0.0;
    for (size_t i = 0; i < n; ++i) checksum += (double)p1[i] + 100.0 * m1[i] + 1000.0 * v1[i];

    printf("adamw_step: n = %zu, step %d, checked %ld, mismatches %ld\n", n, step, checked, mismatches);
    printf("checksum %.6f\n", checksum);

    CHECK_CUDA(cudaFree(d_p));
    CHECK_CUDA(cudaFree(d_g));
    CHECK_CUDA(cudaFree(d_m));
    CHECK_CUDA(cudaFree(d_v));
    return mismatches == 0 ? 0 : 1;
}
