// Convert a batch of feature maps from NCHW layout to NHWC layout
// (channels-last), as done before handing activations to an NHWC library.
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CALL(x)                                                        \
    if ((x) != cudaSuccess) {                                               \
        printf("Error at %s:%d: %s\n", __FILE__, __LINE__,                  \
               cudaGetErrorString(cudaGetLastError()));                     \
        return 1;                                                           \
    }

// one thread per input element: reads are contiguous, writes jump by C
__global__ void nchw_to_nhwc(const float* in, float* out, int N, int C, int H, int W)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    int total = N * C * H * W;
    if (idx < total) {
        int w = idx % W;
        int h = (idx / W) % H;
        int c = (idx / (W * H)) % C;
        int n = idx / (W * H * C);
        out[((n * H + h) * W + w) * C + c] = in[idx];
    }
}

int main()
{
    const int N = 32, C = 64, H = 128, W = 128;
    const int total = N * C * H * W;  // 33554432

    std::vector<float> h_in(total), h_out(total);
    for (int i = 0; i < total; i++)
        h_in[i] = (float)(i % 65521) - 32760.0f;

    float *d_in, *d_out;
    CUDA_CALL(cudaMalloc(&d_in, total * sizeof(float)));
    CUDA_CALL(cudaMalloc(&d_out, total * sizeof(float)));
    CUDA_CALL(cudaMemcpy(d_in, h_in.data(), total * sizeof(float), cudaMemcpyHostToDevice));

    int threads = 256;
    int blocks = (total + threads - 1) / threads;
    nchw_to_nhwc<<<blocks, threads>>>(d_in, d_out, N, C, H, W);
    CUDA_CALL(cudaGetLastError());
    CUDA_CALL(cudaDeviceSynchronize());

    CUDA_CALL(cudaMemcpy(h_out.data(), d_out, total * sizeof(float), cudaMemcpyDeviceToHost));

    // full comparison against the host permutation
    long long errors = 0;
    double checksum = 0.0;
    for (int n = 0; n < N; n++)
        for (int h = 0; h < H; h++)
            for (int w = 0; w < W; w++)
                for (int c = 0; c < C; c++) {
                    int o = ((n * H + h) * W + w) * C + c;
                    float ref = h_in[((n * C + c) * H + h) * W + w];
                    if (h_out[o] != ref) {
                        if (errors < 10)
                            printf("mismatch at n=%d c=%d h=%d w=%d: got %f expected %f\n",
                                   n, c, h, w, h_out[o], ref);
                        errors++;
                    }
                    checksum += (double)h_out[o] * (double)((o % 7) + 1);
                }
    printf("checksum = %.1f\n", checksum);

    cudaFree(d_in);
    cudaFree(d_out);

    if (errors) {
        printf("%lld mismatches\n", errors);
        return 1;
    }
    printf("OK\n");
    return 0;
}
