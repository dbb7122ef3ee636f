// One explicit heat-equation step on a 3-D grid: 7-point Laplacian, fixed boundary.
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <cuda_runtime.h>

#define NX 512
#define NY 512
#define NZ 128

__device__ __forceinline__ size_t at(int x, int y, int z)
{
    return ((size_t)z * NY + y) * NX + x;
}

__global__ void heat_step_3d(const float *__restrict__ u, float *__restrict__ un, float r)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z;
    if (x >= NX || y >= NY || z >= NZ)
        return;

    size_t i = at(x, y, z);
    if (x == 0 || y == 0 || z == 0 || x == NX - 1 || y == NY - 1 || z == NZ - 1) {
        un[i] = u[i];  // Dirichlet boundary: keep the old value
        return;
    }

    float c = u[i];
    float lap = u[at(x - 1, y, z)] + u[at(x + 1, y, z)]
              + u[at(x, y - 1, z)] + u[at(x, y + 1, z)]
              + u[at(x, y, z - 1)] + u[at(x, y, z + 1)]
              - 6.0f * c;
    un[i] = c + r * lap;
}

int main(void)
{
    const size_t n = (size_t)NX * NY * NZ;
    const size_t bytes = n * sizeof(float);
    float *h_u = (float *)malloc(bytes);
    float *h_un = (float *)malloc(bytes);
    if (h_u == NULL || h_un == NULL) {
        printf("out of host memory\n");
        return 1;
    }

    for (int z = 0; z < NZ; z++)
        for (int y = 0; y < NY; y++)
            for (int x = 0; x < NX; x++) {
                float fx = (float)x / NX, fy = (float)y / NY, fz = (float)z / NZ;
                h_u[((size_t)z * NY + y) * NX + x] =
                    sinf(6.2831853f * fx) * cosf(3.1415926f * fy) + fz * fz + ((x ^ y ^ z) & 7) * 0.01f;
            }

    float *d_u, *d_un;
    if (cudaMalloc((void **)&d_u, bytes) != cudaSuccess ||
        cudaMalloc((void **)&d_un, bytes) != cudaSuccess) {
        printf("cudaMalloc failed\n");
        return 1;
    }
    if (cudaMemcpy(d_u, h_u, bytes, cudaMemcpyHostToDevice) != cudaSuccess) {
        printf("cudaMemcpy to device failed\n");
        return 1;
    }

    dim3 block(32, 8, 1);
    dim3 grid(NX / 32, NY / 8, NZ);
    heat_step_3d<<<grid, block>>>(d_u, d_un, 0.1f);
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
        printf("heat_step_3d failed: %s\n", cudaGetErrorString(e));
        return 1;
    }

    if (cudaMemcpy(h_un, d_un, bytes, cudaMemcpyDeviceToHost) != cudaSuccess) {
        printf("cudaMemcpy to host failed\n");
        return 1;
    }

    double checksum = 0.0, change = 0.0;
    for (size_t i = 0; i < n; i++) {
        checksum += h_un[i];
        change += fabs((double)h_un[i] - (double)h_u[i]);
    }
    printf("grid %d x %d x %d\n", NX, NY, NZ);
    printf("checksum %.6f total |change| %.6f\n", checksum, change);

    cudaFree(d_u);
    cudaFree(d_un);
    free(h_u);
    free(h_un);
    return 0;
}
