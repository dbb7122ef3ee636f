// 3-D permutation of a [A][B][C] = [256][256][512] float array into
// [C][B][A]: out[c][b][a] = in[a][b][c], one thread per OUTPUT element.
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

#define DIM_A 256
#define DIM_B 256
#define DIM_C 512

#define CUDA_CHECK(x)                                                        \
    {                                                                        \
        cudaError_t err = (x);                                               \
        if (err != cudaSuccess) {                                            \
            printf("CUDA error %s at %s:%d\n", cudaGetErrorString(err),      \
                   __FILE__, __LINE__);                                      \
            exit(1);                                                         \
        }                                                                    \
    }

__global__ void permute_cba(const float* in, float* out)
{
    unsigned int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < DIM_A * DIM_B * DIM_C) {
        // output layout [C][B][A]: a is fastest
        unsigned int a = idx % DIM_A;
        unsigned int b = (idx / DIM_A) % DIM_B;
        unsigned int c = idx / (DIM_A * DIM_B);
        out[idx] = in[(a * DIM_B + b) * DIM_C + c];
    }
}

int main()
{
    const unsigned int total = DIM_A * DIM_B * DIM_C;
    const size_t bytes = total * sizeof(float);

    float* h_in = (float*)malloc(bytes);
    float* h_out = (float*)malloc(bytes);
    for (unsigned int i = 0; i < total; i++)
        h_in[i] = sinf(i * 0.001f) + 0.0001f * (float)(i % 1000);

    float *d_in, *d_out;
    CUDA_CHECK(cudaMalloc(&d_in, bytes));
    CUDA_CHECK(cudaMalloc(&d_out, bytes));
    CUDA_CHECK(cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice));

    const int threads = 512;
    const int blocks = (total + threads - 1) / threads;
    permute_cba<<<blocks, threads>>>(d_in, d_out);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());

    CUDA_CHECK(cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost));
    // weighted checksum so that a wrong placement changes it
    double checksum = 0.0;
    for (unsigned int i = 0; i < total; i++)
        checksum += (double)h_out[i] * (double)((i % 7) + 1);
    int a = 3, b = 5, c = 7;
    printf("checksum %.6f  out[7][5][3]=%.6f in[3][5][7]=%.6f\n", checksum,
           h_out[(c * DIM_B + b) * DIM_A + a], h_in[(a * DIM_B + b) * DIM_C + c]);

    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
    free(h_in);
    free(h_out);
    return 0;
}
