// Softmax backward over the last dimension: dx = y * (dy - sum_j dy_j * y_j), one thread per row.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cmath>
#include <vector>

#define ROWS 16384
#define COLS 2048

static bool ok(cudaError_t e, const char* what)
{
    if (e == cudaSuccess) return true;
    fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    return false;
}

__global__ void softmax_backward(float* __restrict__ dx, const float* __restrict__ y,
                                 const float* __restrict__ dy, int rows, int cols)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < rows) {
        const float* yr = y + (size_t)row * cols;
        const float* gr = dy + (size_t)row * cols;
        float* out = dx + (size_t)row * cols;
        float dot = 0.0f;
        for (int j = 0; j < cols; ++j)
            dot += gr[j] * yr[j];
        for (int j = 0; j < cols; ++j)
            out[j] = yr[j] * (gr[j] - dot);
    }
}

static uint32_t xhash(uint32_t x)
{
    x ^= x >> 15;
    x *= 0x2c1b3c6dU;
    x ^= x >> 12;
    x *= 0x297a2d39U;
    x ^= x >> 15;
    return x;
}

int main()
{
    const int rows = ROWS, cols = COLS;
    const size_t count = (size_t)rows * cols;

    // y: each row a probability vector (positive weights normalised); dy: multiples of 1/16 in [-2, 2]
    std::vector<float> y(count), dy(count);
    for (int r = 0; r < rows; ++r) {
        size_t base = (size_t)r * cols;
        double total = 0.0;
        for (int j = 0; j < cols; ++j) {
            uint32_t hv = xhash((uint32_t)(base + j));
            y[base + j] = (float)(hv % 255u + 1u);
            total += y[base + j];
            dy[base + j] = (float)((int)((hv >> 9) % 65u) - 32) / 16.0f;
        }
        for (int j = 0; j < cols; ++j) y[base + j] = (float)(y[base + j] / total);
    }

    float *d_y, *d_dy, *d_dx;
    if (!ok(cudaMalloc(&d_y, count * sizeof(float)), "cudaMalloc y")) return 1;
    if (!ok(cudaMalloc(&d_dy, count * sizeof(float)), "cudaMalloc dy")) return 1;
    if (!ok(cudaMalloc(&d_dx, count * sizeof(float)), "cudaMalloc dx")) return 1;
    if (!ok(cudaMemcpy(d_y, y.data(), count * sizeof(float), cudaMemcpyHostToDevice), "copy y")) return 1;
    if (!ok(cudaMemcpy(d_dy, dy.data(), count * sizeof(float), cudaMemcpyHostToDevice), "copy dy")) return 1;

    const int threads = 256;
    softmax_backward<<<(rows + threads - 1) / threads, threads>>>(d_dx, d_y, d_dy, rows, cols);
    if (!ok(cudaGetLastError(), "launch")) return 1;
    if (!ok(cudaDeviceSynchronize(), "synchronize")) return 1;

    std::vector<float> dx(count);
    if (!ok(cudaMemcpy(dx.data(), d_dx, count * sizeof(float), cudaMemcpyDeviceToHost), "copy dx")) return 1;

    long mismatches = 0, checked = 0;
    for (int r = 0; r < rows; r += (r < 8 || r >= rows - 8) ? 1 : 61) {
        size_t base = (size_t)r * cols;
        double dot = 0.0;
        for (int j = 0; j < cols; ++j) dot += (double)dy[base + j] * y[base + j];
        for (int j = 0; j < cols; ++j) {
            double want = y[base + j] * (dy[base + j] - dot);
            ++checked;
            if (std::fabs(dx[base + j] - want) > 1e-7 + 1e-4 * std::fabs(want)) {
                if (mismatches < 5)
                    fprintf(stderr, "row %d col %d: got %g want %g\n", r, j, dx[base + j], want);
                ++mismatches;
            }
        }
    }

    double checksum = 0.0;
    for (size_t i = 0; i < count; ++i) checksum += std::fabs((double)dx[i]);

    printf("softmax_backward: %d x %d, checked %ld, mismatches %ld\n", rows, cols, checked, mismatches);
    printf("checksum %.9f\n", checksum);

    cudaFree(d_y);
    cudaFree(d_dy);
    cudaFree(d_dx);
    return mismatches == 0 ? 0 : 1;
}
