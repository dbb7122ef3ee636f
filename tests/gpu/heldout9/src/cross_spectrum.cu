// Cross-power spectrum of two complex signals (the pointwise step of an
// FFT-based cross-correlation): out[i] = scale * a[i] * conj(b[i]),
// on cuFloatComplex arrays with the cuComplex.h helpers.
#include <cstdio>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>
#include <cuComplex.h>
#include <cuda_runtime.h>

static void throw_on_error(cudaError_t e, const char* what)
{
    if (e != cudaSuccess)
        throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

__global__ void cross_spectrum(const cuFloatComplex* a, const cuFloatComplex* b,
                               cuFloatComplex* out, float scale, long n)
{
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n;
         i += (long)gridDim.x * blockDim.x) {
        cuFloatComplex p = cuCmulf(a[i], cuConjf(b[i]));
        out[i] = make_cuFloatComplex(scale * cuCrealf(p), scale * cuCimagf(p));
    }
}

static float component(uint32_t i, uint32_t salt)
{
    uint32_t h = i * 0x9E3779B1u ^ salt;
    h ^= h >> 15;
    h *= 0x2c1b3c6du;
    h ^= h >> 12;
    return (float)((int)(h % 64u) - 32) * 0.125f;    // multiples of 1/8 in [-4, 4)
}

int main()
{
    try {
        const long n = 3L << 24;                        // 50M complex samples
        const float scale = 0.5f;

        std::vector<cuFloatComplex> ha(n), hb(n), hout(n);
        for (long i = 0; i < n; ++i) {
            ha[i] = make_cuFloatComplex(component((uint32_t)i, 0x1234u), component((uint32_t)i, 0xabcdu));
            hb[i] = make_cuFloatComplex(component((uint32_t)i, 0x5151u), component((uint32_t)i, 0x7e7eu));
        }

        cuFloatComplex *da, *db, *dout;
        const size_t bytes = (size_t)n * sizeof(cuFloatComplex);
        throw_on_error(cudaMalloc(&da, bytes), "cudaMalloc a");
        throw_on_error(cudaMalloc(&db, bytes), "cudaMalloc b");
        throw_on_error(cudaMalloc(&dout, bytes), "cudaMalloc out");
        throw_on_error(cudaMemcpy(da, ha.data(), bytes, cudaMemcpyHostToDevice), "copy a");
        throw_on_error(cudaMemcpy(db, hb.data(), bytes, cudaMemcpyHostToDevice), "copy b");

        int sms = 0;
        throw_on_error(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), "attribute");
        const int threads = 256;
        const int blocks = sms * 32;
        cross_spectrum<<<blocks, threads>>>(da, db, dout, scale, n);
        throw_on_error(cudaGetLastError(), "launch");
        throw_on_error(cudaDeviceSynchronize(), "kernel");
        throw_on_error(cudaMemcpy(hout.data(), dout, bytes, cudaMemcpyDeviceToHost), "copy out");

        // Products of multiples of 1/8 are multiples of 1/64 well inside fp32
        // range: the host result is exact and compared with ==.
        long bad = 0;
        double checksum = 0.0;
        for (long i = 0; i < n; ++i) {
            cuFloatComplex p = cuCmulf(ha[i], cuConjf(hb[i]));
            float re = scale * cuCrealf(p), im = scale * cuCimagf(p);
            if (cuCrealf(hout[i]) != re || cuCimagf(hout[i]) != im) {
                if (bad < 10)
                    std::printf("mismatch at %ld: got (%f, %f) expected (%f, %f)\n", i,
                                cuCrealf(hout[i]), cuCimagf(hout[i]), re, im);
                ++bad;
            }
            checksum += cuCrealf(hout[i]) - 0.5 * cuCimagf(hout[i]);
        }
        std::printf("cross_spectrum n=%ld (%d blocks of %d): %ld mismatches\n", n, blocks, threads, bad);
        std::printf("checksum %.6f\n", checksum);

        throw_on_error(cudaFree(da), "free a");
        throw_on_error(cudaFree(db), "free b");
        throw_on_error(cudaFree(dout), "free out");

        if (bad) {
            std::printf("FAILED\n");
            return 1;
        }
        std::printf("OK\n");
        return 0;
    } catch (const std::exception& ex) {
        std::fprintf(stderr, "error: %s\n", ex.what());
        return 1;
    }
}
