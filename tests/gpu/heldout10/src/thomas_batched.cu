// Batched tridiagonal solves with the Thomas algorithm, one thread per system (contiguous layout).
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cmath>
#include <vector>

#define NUM_SYSTEMS 65536
#define SYSTEM_SIZE 256

static int check(cudaError_t e, int line)
{
    if (e != cudaSuccess) {
        fprintf(stderr, "line %d: CUDA error %s\n", line, cudaGetErrorName(e));
        exit(2);
    }
    return 0;
}

// system s occupies [s * n, (s + 1) * n) in every array; a[first] and c[last] are unused
__global__ void thomas_solve(const float* a, const float* b, const float* c, const float* d,
                             float* cp, float* x, int nsys, int n)
{
    int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s < nsys) {
        size_t base = (size_t)s * n;
        float denom = b[base];
        cp[base] = c[base] / denom;
        x[base] = d[base] / denom;
        for (int i = 1; i < n; ++i) {
            size_t k = base + i;
            denom = b[k] - a[k] * cp[k - 1];
            cp[k] = c[k] / denom;
            x[k] = (d[k] - a[k] * x[k - 1]) / denom;
        }
        for (int i = n - 2; i >= 0; --i) {
            size_t k = base + i;
            x[k] = x[k] - cp[k] * x[k + 1];
        }
    }
}

static uint32_t squirrel(uint32_t pos, uint32_t seed)
{
    uint32_t m = pos * 0xb5297a4dU;
    m += seed;
    m ^= m >> 8;
    m += 0x68e31da4U;
    m ^= m << 8;
    m *= 0x1b56c4e9U;
    m ^= m >> 8;
    return m;
}

int main()
{
    const int nsys = NUM_SYSTEMS, n = SYSTEM_SIZE;
    const size_t total = (size_t)nsys * n;

    std::vector<float> a(total), b(total), c(total), d(total);
    for (size_t k = 0; k < total; ++k) {
        uint32_t p = (uint32_t)k;
        a[k] = (float)((int)(squirrel(p, 11u) % 257u) - 128) / 128.0f;   // [-1, 1]
        c[k] = (float)((int)(squirrel(p, 23u) % 257u) - 128) / 128.0f;   // [-1, 1]
        b[k] = 4.0f + (float)(squirrel(p, 37u) % 256u) / 128.0f;          // [4, 6): dominant
        d[k] = (float)((int)(squirrel(p, 41u) % 513u) - 256) / 32.0f;    // [-8, 8]
    }

    float *d_a, *d_b, *d_c, *d_d, *d_cp, *d_x;
    check(cudaMalloc(&d_a, total * sizeof(float)), __LINE__);
    check(cudaMalloc(&d_b, total * sizeof(float)), __LINE__);
    check(cudaMalloc(&d_c, total * sizeof(float)), __LINE__);
    check(cudaMalloc(&d_d, total * sizeof(float)), __LINE__);
    check(cudaMalloc(&d_cp, total * sizeof(float)), __LINE__);
    check(cudaMalloc(&d_x, total * sizeof(float)), __LINE__);
    check(cudaMemcpy(d_a, a.data(), total * sizeof(float), cudaMemcpyHostToDevice), __LINE__);
    check(cudaMemcpy(d_b, b.data(), total * sizeof(float), cudaMemcpyHostToDevice), __LINE__);
    check(cudaMemcpy(d_c, c.data(), total * sizeof(float), cudaMemcpyHostToDevice), __LINE__);
    check(cudaMemcpy(d_d, d.data(), total * sizeof(float), cudaMemcpyHostToDevice), __LINE__);

    const int threads = 128;
    thomas_solve<<<(nsys + threads - 1) / threads, threads>>>(d_a, d_b, d_c, d_d, d_cp, d_x, nsys, n);
    check(cudaGetLastError(), __LINE__);
    check(cudaDeviceSynchronize(), __LINE__);

    std::vector<float> x(total);
    check(cudaMemcpy(x.data(), d_x, total * sizeof(float), cudaMemcpyDeviceToHost), __LINE__);

    // double-precision Thomas solve of every 257th system (0, 257, ..., 65535), compared in full
    std::vector<double> cpr(n), xr(n);
    long mismatches = 0, checked = 0;
    for (int s = 0; s < nsys; s += 257) {
        size_t base = (size_t)s * n;
        cpr[0] = c[base] / (double)b[base];
        xr[0] = d[base] / (double)b[base];
        for (int i = 1; i < n; ++i) {
            double den = b[base + i] - (double)a[base + i] * cpr[i - 1];
            cpr[i] = c[base + i] / den;
            xr[i] = (d[base + i] - (double)a[base + i] * xr[i - 1]) / den;
        }
        for (int i = n - 2; i >= 0; --i) xr[i] -= cpr[i] * xr[i + 1];
        for (int i = 0; i < n; ++i) {
            ++checked;
            if (std::fabs(x[base + i] - xr[i]) > 1e-4 + 1e-4 * std::fabs(xr[i])) {
                if (mismatches < 5)
                    fprintf(stderr, "system %d row %d: got %f want %f\n", s, i, x[base + i], xr[i]);
                ++mismatches;
            }
        }
    }

    double checksum = 0.0;
    for (size_t k = 0; k < total; ++k) checksum += x[k];

    printf("thomas_solve: %d systems of %d unknowns, checked %ld, mismatches %ld\n", nsys, n, checked, mismatches);
    printf("checksum %.6f\n", checksum);

    cudaFree(d_a);
    cudaFree(d_b);
    cudaFree(d_c);
    cudaFree(d_d);
    cudaFree(d_cp);
    cudaFree(d_x);
    return mismatches == 0 ? 0 : 1;
}
