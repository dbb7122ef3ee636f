// Two steps over a ROWS x COLS activation matrix:
//   1) t = x * gain[row]          (per-row gain, broadcast along the row)
//   2) y = softplus(t) = log(1 + exp(t))
#include <cstdio>
#include <cstdlib>
#include <cmath>

#define ROWS 16384
#define COLS 4096

#define cudaSafeCall(err) __cudaSafeCall(err, __FILE__, __LINE__)
inline void __cudaSafeCall(cudaError_t err, const char* file, int line)
{
    if (err != cudaSuccess) {
        fprintf(stderr, "cudaSafeCall() failed at %s:%d : %s\n", file, line, cudaGetErrorString(err));
        exit(-1);
    }
}

__global__ void row_gain(const float* x, const float* gain, float* t, unsigned int n, unsigned int cols)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned int row = i / cols;
        t[i] = x[i] * gain[row];
    }
}

__device__ float softplus(float v)
{
    // avoid overflow of expf for large inputs
    if (v > 20.0f) return v;
    return log1pf(expf(v));
}

__global__ void softplus_kernel(const float* __restrict__ t, float* __restrict__ y, long long n)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)blockDim.x * gridDim.x) {
        y[i] = softplus(t[i]);
    }
}

int main()
{
    const long long n = (long long)ROWS * COLS;
    float* h_x = new float[n];
    float* h_gain = new float[ROWS];
    float* h_y = new float[n];

    for (long long i = 0; i < n; i++)
        h_x[i] = (float)((i * 7) % 41 - 20) * 0.125f;
    for (int r = 0; r < ROWS; r++)
        h_gain[r] = 0.5f + (float)(r % 9) * 0.25f;

    float *d_x, *d_gain, *d_t, *d_y;
    cudaSafeCall(cudaMalloc(&d_x, n * sizeof(float)));
    cudaSafeCall(cudaMalloc(&d_gain, ROWS * sizeof(float)));
    cudaSafeCall(cudaMalloc(&d_t, n * sizeof(float)));
    cudaSafeCall(cudaMalloc(&d_y, n * sizeof(float)));
    cudaSafeCall(cudaMemcpy(d_x, h_x, n * sizeof(float), cudaMemcpyHostToDevice));
    cudaSafeCall(cudaMemcpy(d_gain, h_gain, ROWS * sizeof(float), cudaMemcpyHostToDevice));

    const int threads = 512;
    unsigned int blocks1 = (unsigned int)((n + threads - 1) / threads);
    row_gain<<<blocks1, threads>>>(d_x, d_gain, d_t, (unsigned int)n, COLS);
    cudaSafeCall(cudaGetLastError());

    int blocks2 = 4096;
    softplus_kernel<<<blocks2, threads>>>(d_t, d_y, n);
    cudaSafeCall(cudaGetLastError());
    cudaSafeCall(cudaDeviceSynchronize());

    cudaSafeCall(cudaMemcpy(h_y, d_y, n * sizeof(float), cudaMemcpyDeviceToHost));

    // spot check against a host reference in double
    int bad = 0;
    for (long long i = 0; i < n; i += 4099) {
        int row = (int)(i / COLS);
        double t = (double)h_x[i] * (double)h_gain[row];
        double ref = t > 20.0 ? t : log1p(exp(t));
        double err = fabs((double)h_y[i] - ref);
        if (err > 1e-5 * fabs(ref) + 1e-6) {
            if (bad < 10)
                printf("mismatch at %lld: got %.7f expected %.7f\n", i, h_y[i], ref);
            bad++;
        }
    }

    double checksum = 0.0;
    for (long long i = 0; i < n; i++) checksum += h_y[i];
    printf("checksum = %.4f\n", checksum);

    cudaFree(d_x);
    cudaFree(d_gain);
    cudaFree(d_t);
    cudaFree(d_y);
    delete[] h_x;
    delete[] h_gain;
    delete[] h_y;

    if (bad) {
        printf("FAILED: %d mismatches\n", bad);
        return 1;
    }
    printf("OK\n");
    return 0;
}
