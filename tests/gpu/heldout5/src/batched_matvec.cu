// Batched small matrix-vector products: y[b] = M[b] * v[b] for 8192
// independent 64x64 row-major matrices, one thread per output element.
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

template <int DIM>
__global__ void batched_matvec(const float* __restrict__ mats,
                               const float* __restrict__ vecs,
                               float* __restrict__ out, int batch)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid >= batch * DIM) return;

    int b = tid / DIM;
    int row = tid % DIM;
    const float* m = mats + (size_t)b * DIM * DIM + (size_t)row * DIM;
    const float* v = vecs + (size_t)b * DIM;

    float acc = 0.0f;
    for (int k = 0; k < DIM; ++k)
        acc += m[k] * v[k];
    out[tid] = acc;
}

int main()
{
    const int DIM = 64;
    const int batch = 8192;
    size_t mat_elems = (size_t)batch * DIM * DIM;
    size_t vec_elems = (size_t)batch * DIM;

    float* h_mats = new float[mat_elems];
    float* h_vecs = new float[vec_elems];
    float* h_out = new float[vec_elems];
    for (size_t i = 0; i < mat_elems; ++i)
        h_mats[i] = sinf((float)(i % 100003) * 0.001f);
    for (size_t i = 0; i < vec_elems; ++i)
        h_vecs[i] = cosf((float)i * 0.0005f);

    float *d_mats, *d_vecs, *d_out;
    cudaMalloc((void**)&d_mats, mat_elems * sizeof(float));
    cudaMalloc((void**)&d_vecs, vec_elems * sizeof(float));
    cudaMalloc((void**)&d_out, vec_elems * sizeof(float));
    cudaMemcpy(d_mats, h_mats, mat_elems * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_vecs, h_vecs, vec_elems * sizeof(float), cudaMemcpyHostToDevice);

    int threads = 128;
    int blocks = (batch * DIM + threads - 1) / threads;
    batched_matvec<DIM><<<blocks, threads>>>(d_mats, d_vecs, d_out, batch);
    cudaDeviceSynchronize();

    cudaMemcpy(h_out, d_out, vec_elems * sizeof(float), cudaMemcpyDeviceToHost);
    double sum = 0.0, asum = 0.0;
    for (size_t i = 0; i < vec_elems; ++i) {
        sum += h_out[i];
        asum += fabs(h_out[i]);
    }
    printf("sum=%.6f abs_sum=%.6f y[0]=%.6f\n", sum, asum, h_out[0]);

    cudaFree(d_mats);
    cudaFree(d_vecs);
    cudaFree(d_out);
    delete[] h_mats;
    delete[] h_vecs;
    delete[] h_out;
    return 0;
}
