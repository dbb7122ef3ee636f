// All-pairs gravitational accelerations for N bodies (G = 1) with Plummer
// softening: a_i = sum_j m_j (r_j - r_i) / (|r_j - r_i|^2 + eps^2)^(3/2).
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <cuda_runtime.h>

#define N_BODIES 32768
#define BLOCK 256

#define gpuErrchk(ans) { gpuAssert((ans), __FILE__, __LINE__); }
inline void gpuAssert(cudaError_t code, const char* file, int line)
{
    if (code != cudaSuccess) {
        fprintf(stderr, "GPUassert: %s %s %d\n", cudaGetErrorString(code), file, line);
        exit(code);
    }
}

__global__ void body_accel(int n,
                           const float* __restrict__ px, const float* __restrict__ py,
                           const float* __restrict__ pz, const float* __restrict__ mass,
                           float* __restrict__ ax, float* __restrict__ ay, float* __restrict__ az,
                           float softening2)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;

    float xi = px[i], yi = py[i], zi = pz[i];
    float fx = 0.0f, fy = 0.0f, fz = 0.0f;
    for (int j = 0; j < n; ++j) {
        float dx = px[j] - xi;
        float dy = py[j] - yi;
        float dz = pz[j] - zi;
        float d2 = dx * dx + dy * dy + dz * dz + softening2;
        float inv = rsqrtf(d2);
        float s = mass[j] * inv * inv * inv;
        fx += s * dx;
        fy += s * dy;
        fz += s * dz;
    }
    ax[i] = fx;
    ay[i] = fy;
    az[i] = fz;
}

static float unit_hash(unsigned int v)
{
    v ^= v >> 17;
    v *= 0xed5ad4bbu;
    v ^= v >> 11;
    v *= 0xac4c1b51u;
    v ^= v >> 15;
    return (float)(v & 0xFFFFFF) / 16777216.0f;   // [0, 1)
}

int main()
{
    const int n = N_BODIES;
    const float softening2 = 0.01f;

    std::vector<float> px(n), py(n), pz(n), m(n), ax(n), ay(n), az(n);
    for (int i = 0; i < n; ++i) {
        px[i] = 20.0f * unit_hash(3u * i) - 10.0f;
        py[i] = 20.0f * unit_hash(3u * i + 1u) - 10.0f;
        pz[i] = 20.0f * unit_hash(3u * i + 2u) - 10.0f;
        m[i] = 0.5f + unit_hash(0x8000000u + i);
    }

    const size_t bytes = n * sizeof(float);
    float *d_px, *d_py, *d_pz, *d_m, *d_ax, *d_ay, *d_az;
    gpuErrchk(cudaMalloc(&d_px, bytes));
    gpuErrchk(cudaMalloc(&d_py, bytes));
    gpuErrchk(cudaMalloc(&d_pz, bytes));
    gpuErrchk(cudaMalloc(&d_m, bytes));
    gpuErrchk(cudaMalloc(&d_ax, bytes));
    gpuErrchk(cudaMalloc(&d_ay, bytes));
    gpuErrchk(cudaMalloc(&d_az, bytes));
    gpuErrchk(cudaMemcpy(d_px, px.data(), bytes, cudaMemcpyHostToDevice));
    gpuErrchk(cudaMemcpy(d_py, py.data(), bytes, cudaMemcpyHostToDevice));
    gpuErrchk(cudaMemcpy(d_pz, pz.data(), bytes, cudaMemcpyHostToDevice));
    gpuErrchk(cudaMemcpy(d_m, m.data(), bytes, cudaMemcpyHostToDevice));

    body_accel<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(n, d_px, d_py, d_pz, d_m, d_ax, d_ay, d_az, softening2);
    gpuErrchk(cudaPeekAtLastError());
    gpuErrchk(cudaDeviceSynchronize());

    gpuErrchk(cudaMemcpy(ax.data(), d_ax, bytes, cudaMemcpyDeviceToHost));
    gpuErrchk(cudaMemcpy(ay.data(), d_ay, bytes, cudaMemcpyDeviceToHost));
    gpuErrchk(cudaMemcpy(az.data(), d_az, bytes, cudaMemcpyDeviceToHost));

    double sum = 0.0, mag = 0.0;
    for (int i = 0; i < n; ++i) {
        sum += (double)ax[i] + ay[i] + az[i];
        mag += std::sqrt((double)ax[i] * ax[i] + (double)ay[i] * ay[i] + (double)az[i] * az[i]);
    }
    printf("nbody: n = %d, sum %.6f, |a| sum %.6f\n", n, sum, mag);

    cudaFree(d_px); cudaFree(d_py); cudaFree(d_pz); cudaFree(d_m);
    cudaFree(d_ax); cudaFree(d_ay); cudaFree(d_az);
    return 0;
}
