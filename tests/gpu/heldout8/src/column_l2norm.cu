// Euclidean (L2) norm of every column of a row-major ROWS x COLS matrix,
// e.g. to normalise the columns of a feature matrix afterwards.
#include <cstdio>
#include <cstdlib>
#include <cmath>

#define ROWS 16384
#define COLS 4096
#define THREADS 128

static void check(cudaError_t e, const char* msg)
{
    if (e != cudaSuccess) {
        fprintf(stderr, "error: %s (%s)\n", msg, cudaGetErrorString(e));
        exit(1);
    }
}

__global__ void column_norms(const float* m, float* norms, int rows, int cols)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c < cols) {
        const float* p = m + c;
        float s = 0.0f;
        for (int r = 0; r < rows; ++r) {
            s += (*p) * (*p);
            p += cols;
        }
        norms[c] = sqrtf(s);
    }
}

int main()
{
    const size_t n = (size_t)ROWS * COLS;
    float* h_m = new float[n];
    float* h_norms = new float[COLS];

    for (int r = 0; r < ROWS; ++r)
        for (int c = 0; c < COLS; ++c)
            h_m[(size_t)r * COLS + c] = (float)((r + 3 * c) % 11 - 5) * 0.5f;

    float* d_m = nullptr;
    float* d_norms = nullptr;
    check(cudaMalloc(&d_m, n * sizeof(float)), "cudaMalloc m");
    check(cudaMalloc(&d_norms, COLS * sizeof(float)), "cudaMalloc norms");
    check(cudaMemcpy(d_m, h_m, n * sizeof(float), cudaMemcpyHostToDevice), "copy m");

    column_norms<<<(COLS + THREADS - 1) / THREADS, THREADS>>>(d_m, d_norms, ROWS, COLS);
    check(cudaGetLastError(), "launch");
    check(cudaDeviceSynchronize(), "sync");

    check(cudaMemcpy(h_norms, d_norms, COLS * sizeof(float), cudaMemcpyDeviceToHost), "copy norms");

    // host reference for every column: the sums of squares are multiples of
    // 1/4 below 2^17 and therefore exact; sqrtf is correctly rounded on both sides
    float* ss = new float[COLS];
    for (int c = 0; c < COLS; ++c) ss[c] = 0.0f;
    for (int r = 0; r < ROWS; ++r) {
        const float* row = h_m + (size_t)r * COLS;
        for (int c = 0; c < COLS; ++c)
            ss[c] += row[c] * row[c];
    }

    int bad = 0;
    double checksum = 0.0;
    for (int c = 0; c < COLS; ++c) {
        float ref = sqrtf(ss[c]);
        if (fabsf(h_norms[c] - ref) > 1e-6f * ref) {
            if (bad < 10)
                printf("mismatch at column %d: got %f expected %f\n", c, h_norms[c], ref);
            ++bad;
        }
        checksum += h_norms[c];
    }
    printf("checksum = %.5f\n", checksum);

    cudaFree(d_m);
    cudaFree(d_norms);
    delete[] h_m;
    delete[] h_norms;
    delete[] ss;

    if (bad) {
        printf("FAILED: %d columns differ\n", bad);
        return 1;
    }
    printf("OK\n");
    return 0;
}
