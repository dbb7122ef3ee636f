// Caffe-style im2col for a 3x3 convolution (stride 1, zero padding 1) of one C x H x W image.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>

#define KSIZE 3
#define NUM_THREADS 512

#define CUDA_KERNEL_LOOP(i, n) \
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)

#define CUDA_CALL(x)                                                            \
    do {                                                                        \
        cudaError_t rc_ = (x);                                                  \
        if (rc_ != cudaSuccess) {                                               \
            printf("CUDA failure %s at %s:%d\n", cudaGetErrorString(rc_),      \
                   __FILE__, __LINE__);                                         \
            exit(EXIT_FAILURE);                                                 \
        }                                                                       \
    } while (0)

static inline int get_blocks(int n) { return (n + NUM_THREADS - 1) / NUM_THREADS; }

// one thread per (channel, output row, output column); writes KSIZE * KSIZE column entries
__global__ void im2col_3x3(int n, const float* data_im, int height, int width, int pad, float* data_col)
{
    CUDA_KERNEL_LOOP(index, n) {
        int w_out = index % width;
        int h_index = index / width;
        int h_out = h_index % height;
        int c_im = h_index / height;
        int c_col = c_im * KSIZE * KSIZE;
        int h_in = h_out - pad;
        int w_in = w_out - pad;
        float* col = data_col + ((size_t)c_col * height + h_out) * width + w_out;
        for (int i = 0; i < KSIZE; ++i) {
            for (int j = 0; j < KSIZE; ++j) {
                int h = h_in + i;
                int w = w_in + j;
                *col = (h >= 0 && w >= 0 && h < height && w < width)
                           ? data_im[((size_t)c_im * height + h) * width + w]
                           : 0.0f;
                col += (size_t)height * width;
            }
        }
    }
}

static uint32_t hash_pcg(uint32_t v)
{
    uint32_t state = v * 747796405u + 2891336453u;
    uint32_t word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
    return (word >> 22u) ^ word;
}

int main()
{
    const int channels = 128, height = 256, width = 256, pad = 1;
    const size_t im_count = (size_t)channels * height * width;
    const size_t col_count = im_count * KSIZE * KSIZE;

    std::vector<float> h_im(im_count);
    for (size_t i = 0; i < im_count; ++i)
        h_im[i] = (float)((int)(hash_pcg((uint32_t)i) % 1025u) - 512) / 32.0f;

    float* d_im = NULL;
    float* d_col = NULL;
    CUDA_CALL(cudaMalloc((void**)&d_im, im_count * sizeof(float)));
    CUDA_CALL(cudaMalloc((void**)&d_col, col_count * sizeof(float)));
    CUDA_CALL(cudaMemcpy(d_im, h_im.data(), im_count * sizeof(float), cudaMemcpyHostToDevice));

    int num_kernels = channels * height * width;
    im2col_3x3<<<get_blocks(num_kernels), NUM_THREADS>>>(num_kernels, d_im, height, width, pad, d_col);
    CUDA_CALL(cudaPeekAtLastError());
    CUDA_CALL(cudaDeviceSynchronize());

    std::vector<float> h_col(col_count);
    CUDA_CALL(cudaMemcpy(h_col.data(), d_col, col_count * sizeof(float), cudaMemcpyDeviceToHost));

    // column matrix row r = (c * 9 + i * 3 + j), column q = h_out * width + w_out
    const size_t hw = (size_t)height * width;
    long mismatches = 0, checked = 0;
    for (size_t k = 0; k < col_count; k += (k < hw || k >= col_count - hw) ? 7 : 1009) {
        size_t r = k / hw, q = k % hw;
        int c = (int)(r / 9), i = (int)(r % 9) / 3, j = (int)(r % 3);
        int h = (int)(q / width) - pad + i, w = (int)(q % width) - pad + j;
        float want = (h >= 0 && w >= 0 && h < height && w < width) ? h_im[((size_t)c * height + h) * width + w] : 0.0f;
        ++checked;
        if (h_col[k] != want) {
            if (mismatches < 5) printf("mismatch at %zu: got %f want %f\n", k, h_col[k], want);
            ++mismatches;
        }
    }

    double checksum = 0.0;
    for (size_t k = 0; k < col_count; ++k) checksum += h_col[k] * (double)(k % 9 + 1);

    printf("im2col_3x3: C=%d H=%d W=%d -> %zu x %zu columns, checked %ld, mismatches %ld\n",
           channels, height, width, (size_t)channels * 9, hw, checked, mismatches);
    printf("checksum %.6f\n", checksum);

    CUDA_CALL(cudaFree(d_im));
    CUDA_CALL(cudaFree(d_col));
    return mismatches ? 1 : 0;
}
