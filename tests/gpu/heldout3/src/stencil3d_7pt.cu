// 7-point 3-D stencil on an nx x ny x nz float grid (x fastest), interior
// points only; a 2-D grid over (x, y), each thread loops over z.
// usage: stencil3d_7pt [nx] [ny] [nz]
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

__device__ inline int at(int x, int y, int z, int nx, int ny)
{
    return (z * ny + y) * nx + x;
}

__global__ void stencil7(const float* in, float* out, int nx, int ny, int nz, float c0, float c1)
{
    int x = threadIdx.x + blockIdx.x * blockDim.x;
    int y = threadIdx.y + blockIdx.y * blockDim.y;
    if (x < 1 || y < 1 || x >= nx - 1 || y >= ny - 1)
        return;
    int z;
    for (z = 1; z < nz - 1; z++) {
        float v = c0 * in[at(x, y, z, nx, ny)]
                + c1 * (in[at(x - 1, y, z, nx, ny)] + in[at(x + 1, y, z, nx, ny)]
                      + in[at(x, y - 1, z, nx, ny)] + in[at(x, y + 1, z, nx, ny)]
                      + in[at(x, y, z - 1, nx, ny)] + in[at(x, y, z + 1, nx, ny)]);
        out[at(x, y, z, nx, ny)] = v;
    }
}

int main(int argc, char** argv)
{
    int nx = 256, ny = 256, nz = 256;
    if (argc > 1) nx = atoi(argv[1]);
    if (argc > 2) ny = atoi(argv[2]);
    if (argc > 3) nz = atoi(argv[3]);
    int total = nx * ny * nz;
    size_t bytes = (size_t)total * sizeof(float);

    float* h_in = (float*)malloc(bytes);
    float* h_out = (float*)malloc(bytes);
    for (int i = 0; i < total; i++)
        h_in[i] = (float)((i * 7) % 13) / 13.0f - 0.5f;

    float *d_in, *d_out;
    cudaMalloc(&d_in, bytes);
    cudaMalloc(&d_out, bytes);
    cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice);
    cudaMemset(d_out, 0, bytes);

    dim3 block(32, 4);
    dim3 grid((nx + 31) / 32, (ny + 3) / 4);
    stencil7<<<grid, block>>>(d_in, d_out, nx, ny, nz, 0.4f, 0.1f);
    cudaDeviceSynchronize();

    cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost);
    double checksum = 0.0;
    for (int i = 0; i < total; i++)
        checksum += (double)h_out[i] * ((i % 5) + 1);
    printf("stencil3d_7pt %dx%dx%d checksum %.6f\n", nx, ny, nz, checksum);

    cudaFree(d_in);
    cudaFree(d_out);
    free(h_in);
    free(h_out);
    return 0;
}
