// Turn every row of a matrix of non-negative weights into a normalised
// cumulative distribution (row CDF): cdf[r][j] = (w[r][0] + ... + w[r][j]) / sum_j w[r][j].
// First version: one thread per row, two passes over the row.
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>

#define CHECK(call)                                                        \
    do {                                                                   \
        cudaError_t err_ = (call);                                         \
        if (err_ != cudaSuccess) {                                         \
            fprintf(stderr, "CUDA error %s at %s:%d\n",                    \
                    cudaGetErrorString(err_), __FILE__, __LINE__);         \
            exit(1);                                                       \
        }                                                                  \
    } while (0)

__global__ void row_cdf(const float* w, float* cdf, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;

    const float* in = w + (size_t)r * cols;
    float* out = cdf + (size_t)r * cols;

    // pass 1: row total
    float total = 0.0f;
    for (int j = 0; j < cols; j++)
        total += in[j];

    float inv = total > 0.0f ? 1.0f / total : 0.0f;

    // pass 2: running sum, scaled
    float run = 0.0f;
    for (int j = 0; j < cols; j++) {
        run += in[j];
        out[j] = run * inv;
    }
}

int main()
{
    const int rows = 16384;
    const int cols = 2048;
    const size_t n = (size_t)rows * cols;

    std::vector<float> h_w(n), h_cdf(n);
    for (int r = 0; r < rows; r++)
        for (int j = 0; j < cols; j++)
            h_w[(size_t)r * cols + j] = (float)((r * 3 + j * 5) % 8) * 0.25f;

    float *d_w, *d_cdf;
    CHECK(cudaMalloc(&d_w, n * sizeof(float)));
    CHECK(cudaMalloc(&d_cdf, n * sizeof(float)));
    CHECK(cudaMemcpy(d_w, h_w.data(), n * sizeof(float), cudaMemcpyHostToDevice));

    int threads = 256;
    int blocks = (rows + threads - 1) / threads;
    row_cdf<<<blocks, threads>>>(d_w, d_cdf, rows, cols);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());

    CHECK(cudaMemcpy(h_cdf.data(), d_cdf, n * sizeof(float), cudaMemcpyDeviceToHost));

    // host reference on every 512th row plus the last one
    std::vector<int> check_rows;
    for (int r = 0; r < rows; r += 512) check_rows.push_back(r);
    check_rows.push_back(rows - 1);

    int bad = 0;
    for (size_t k = 0; k < check_rows.size(); k++) {
        int r = check_rows[k];
        const float* in = &h_w[(size_t)r * cols];
        float total = 0.0f;
        for (int j = 0; j < cols; j++) total += in[j];
        float inv = total > 0.0f ? 1.0f / total : 0.0f;
        float run = 0.0f;
        for (int j = 0; j < cols; j++) {
            run += in[j];
            float ref = run * inv;
            float got = h_cdf[(size_t)r * cols + j];
            if (fabsf(got - ref) > 1e-6f * fabsf(ref) + 1e-7f) {
                if (bad < 10)
                    printf("mismatch at row %d col %d: got %f expected %f\n", r, j, got, ref);
                bad++;
                break;
            }
        }
    }

    double checksum = 0.0;
    for (size_t i = 0; i < n; i += 97) checksum += h_cdf[i];
    printf("checksum = %.6f\n", checksum);

    CHECK(cudaFree(d_w));
    CHECK(cudaFree(d_cdf));

    if (bad) {
        printf("FAILED\n");
        return 1;
    }
    printf("OK\n");
    return 0;
}
