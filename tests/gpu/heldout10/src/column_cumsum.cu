// Inclusive cumulative sum down every column of a row-major matrix, one thread per column.
#include <cstdio>
#include <cstdint>
#include <vector>

__global__ void column_cumsum(const float* in, float* out, int rows, int cols)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols) return;
    float running = 0.0f;
    for (int r = 0; r < rows; ++r) {
        size_t k = (size_t)r * cols + c;
        running += in[k];
        out[k] = running;
    }
}

static uint32_t hash_u32(uint32_t a)
{
    a = (a ^ 61u) ^ (a >> 16);
    a = a + (a << 3);
    a = a ^ (a >> 4);
    a = a * 0x27d4eb2dU;
    a = a ^ (a >> 15);
    return a;
}

int main()
{
    const int rows = 4096;
    const int cols = 8192;
    const size_t count = (size_t)rows * cols;

    auto check = [](cudaError_t err, const char* what) {
        if (err != cudaSuccess) {
            fprintf(stderr, "%s failed: %s\n", what, cudaGetErrorString(err));
            return false;
        }
        return true;
    };

    // multiples of 1/4 in [-4, 4]: every partial sum is exact in float
    std::vector<float> h_in(count);
    for (size_t i = 0; i < count; ++i)
        h_in[i] = (float)((int)(hash_u32((uint32_t)i) % 33u) - 16) * 0.25f;

    float* d_in = nullptr;
    float* d_out = nullptr;
    if (!check(cudaMalloc(&d_in, count * sizeof(float)), "cudaMalloc in")) return 1;
    if (!check(cudaMalloc(&d_out, count * sizeof(float)), "cudaMalloc out")) return 1;
    if (!check(cudaMemcpy(d_in, h_in.data(), count * sizeof(float), cudaMemcpyHostToDevice), "copy in")) return 1;

    const int threads = 128;
    const int blocks = (cols + threads - 1) / threads;
    column_cumsum<<<blocks, threads>>>(d_in, d_out, rows, cols);
    if (!check(cudaGetLastError(), "launch")) return 1;
    if (!check(cudaDeviceSynchronize(), "synchronize")) return 1;

    std::vector<float> h_out(count);
    if (!check(cudaMemcpy(h_out.data(), d_out, count * sizeof(float), cudaMemcpyDeviceToHost), "copy out")) return 1;

    std::vector<double> running(cols, 0.0);
    long long mismatches = 0;
    double checksum = 0.0;
    for (int r = 0; r < rows; ++r) {
        for (int c = 0; c < cols; ++c) {
            size_t k = (size_t)r * cols + c;
            running[c] += h_in[k];
            if ((double)h_out[k] != running[c]) {
                if (mismatches < 5)
                    fprintf(stderr, "mismatch at (%d, %d): got %f want %f\n", r, c, h_out[k], running[c]);
                ++mismatches;
            }
            if (r == rows - 1 || r % 512 == 0) checksum += h_out[k];
        }
    }

    printf("column_cumsum: %d x %d, mismatches %lld\n", rows, cols, mismatches);
    printf("checksum %.4f\n", checksum);

    cudaFree(d_in);
    cudaFree(d_out);
    return mismatches == 0 ? 0 : 1;
}
