// Segment sums by scatter: out[seg[i]] += val[i] with one global atomicAdd
// per element. A quarter of the elements go to 16 hot segments, the rest
// are spread over all 4096 by a multiplicative hash. The values are small
// integers, so every segment sum is exact in float whatever the order.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define gpuErrchk(ans) { gpuAssert((ans), __FILE__, __LINE__); }
inline void gpuAssert(cudaError_t code, const char* file, int line, bool abort = true)
{
    if (code != cudaSuccess) {
        fprintf(stderr, "GPUassert: %s %s %d\n", cudaGetErrorString(code), file, line);
        if (abort) exit(code);
    }
}

#define N_ELEMS (1u << 25)
#define N_SEGS 4096

template <typename T>
__global__ void scatter_add(const int* __restrict__ seg, const T* __restrict__ val,
                            T* out, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    atomicAdd(&out[seg[i]], val[i]);
}

int main()
{
    const size_t n = N_ELEMS;
    int* h_seg = new int[n];
    float* h_val = new float[n];
    for (size_t i = 0; i < n; ++i) {
        unsigned int u = (unsigned int)i;
        if (u % 4 == 0)
            h_seg[i] = (int)((u / 4) % 16);
        else
            h_seg[i] = (int)(((u * 2654435761u) >> 20) % N_SEGS);
        h_val[i] = (float)((u / 3) % 8);
    }

    int* d_seg;
    float *d_val, *d_out;
    gpuErrchk(cudaMalloc(&d_seg, n * sizeof(int)));
    gpuErrchk(cudaMalloc(&d_val, n * sizeof(float)));
    gpuErrchk(cudaMalloc(&d_out, N_SEGS * sizeof(float)));
    gpuErrchk(cudaMemcpy(d_seg, h_seg, n * sizeof(int), cudaMemcpyHostToDevice));
    gpuErrchk(cudaMemcpy(d_val, h_val, n * sizeof(float), cudaMemcpyHostToDevice));
    gpuErrchk(cudaMemset(d_out, 0, N_SEGS * sizeof(float)));

    const int threads = 512;
    const unsigned int blocks = (unsigned int)((n + threads - 1) / threads);
    scatter_add<float><<<blocks, threads>>>(d_seg, d_val, d_out, n);
    gpuErrchk(cudaPeekAtLastError());
    gpuErrchk(cudaDeviceSynchronize());

    float* h_out = new float[N_SEGS];
    gpuErrchk(cudaMemcpy(h_out, d_out, N_SEGS * sizeof(float), cudaMemcpyDeviceToHost));

    double* ref = new double[N_SEGS]();
    for (size_t i = 0; i < n; ++i) ref[h_seg[i]] += h_val[i];

    double checksum = 0.0, weighted = 0.0;
    int bad = 0;
    for (int s = 0; s < N_SEGS; ++s) {
        checksum += h_out[s];
        weighted += (double)h_out[s] * (s % 7 + 1);
        if ((double)h_out[s] != ref[s]) ++bad;
    }
    printf("segments %d total %.1f weighted %.1f hot[0] %.1f\n", N_SEGS, checksum, weighted, h_out[0]);
    printf("host check: %s (%d bad)\n", bad ? "MISMATCH" : "match", bad);

    cudaFree(d_seg); cudaFree(d_val); cudaFree(d_out);
    delete[] h_seg; delete[] h_val; delete[] h_out; delete[] ref;
    return 0;
}
