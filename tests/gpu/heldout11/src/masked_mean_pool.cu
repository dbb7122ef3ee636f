// Masked mean pooling over the sequence dimension of a [batch][seq][dim]
// activation tensor: out[b][d] = mean of x[b][t][d] over t < lengths[b]
// (padding tokens past each sequence's length are ignored).
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

template <typename T>
__global__ void masked_mean_pool(const T* x, const int* lengths, T* out, int seq_len, int dim)
{
    int d = blockIdx.x * blockDim.x + threadIdx.x;
    int b = blockIdx.y;
    if (d >= dim) return;

    int len = lengths[b];
    const T* xb = x + (long long)b * seq_len * dim;
    T acc = 0;
    for (int t = 0; t < len; ++t)
        acc += xb[(long long)t * dim + d];
    out[(long long)b * dim + d] = len > 0 ? acc / (T)len : (T)0;
}

int main()
{
    const int batch = 32, seq_len = 2048, dim = 1024;
    const size_t total = (size_t)batch * seq_len * dim;

    auto check = [](cudaError_t e, const char* what) {
        if (e != cudaSuccess) {
            fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
            return false;
        }
        return true;
    };

    std::vector<float> h_x(total);
    std::vector<int> h_len(batch);
    std::vector<float> h_out((size_t)batch * dim);

    for (int b = 0; b < batch; ++b) {
        // between seq_len / 4 and seq_len tokens are real
        h_len[b] = seq_len / 4 + (b * 977) % (3 * seq_len / 4 + 1);
        for (int t = 0; t < seq_len; ++t)
            for (int d = 0; d < dim; ++d)
                h_x[((size_t)b * seq_len + t) * dim + d] =
                    (float)((b * 131 + t * 17 + d * 7) % 256 - 128) / 64.0f;
    }

    float *d_x, *d_out;
    int* d_len;
    if (!check(cudaMalloc(&d_x, total * sizeof(float)), "cudaMalloc x")) return 1;
    if (!check(cudaMalloc(&d_len, batch * sizeof(int)), "cudaMalloc lengths")) return 1;
    if (!check(cudaMalloc(&d_out, (size_t)batch * dim * sizeof(float)), "cudaMalloc out")) return 1;
    if (!check(cudaMemcpy(d_x, h_x.data(), total * sizeof(float), cudaMemcpyHostToDevice), "copy x")) return 1;
    if (!check(cudaMemcpy(d_len, h_len.data(), batch * sizeof(int), cudaMemcpyHostToDevice), "copy lengths")) return 1;

    dim3 block(256);
    dim3 grid((dim + 255) / 256, batch);
    masked_mean_pool<float><<<grid, block>>>(d_x, d_len, d_out, seq_len, dim);
    if (!check(cudaGetLastError(), "launch")) return 1;
    if (!check(cudaDeviceSynchronize(), "masked_mean_pool")) return 1;

    if (!check(cudaMemcpy(h_out.data(), d_out, (size_t)batch * dim * sizeof(float), cudaMemcpyDeviceToHost), "copy out")) return 1;

    double sum = 0.0, wsum = 0.0;
    for (size_t i = 0; i < h_out.size(); ++i) {
        sum += h_out[i];
        wsum += h_out[i] * (double)(i % 13 + 1);
    }
    printf("masked_mean_pool: checksum %.6f weighted %.6f\n", sum, wsum);

    cudaFree(d_x);
    cudaFree(d_len);
    cudaFree(d_out);
    return 0;
}
