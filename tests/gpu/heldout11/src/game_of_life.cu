// One generation of Conway's Game of Life on a 16384 x 16384 torus
// (edges wrap around), one byte per cell.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define GRID_W 16384
#define GRID_H 16384

#define CK(call)                                                               \
    if ((call) != cudaSuccess) {                                               \
        fprintf(stderr, "%s failed: %s\n", #call,                              \
                cudaGetErrorString(cudaGetLastError()));                       \
        return 1;                                                              \
    }

__global__ void life_step(const unsigned char* cur, unsigned char* next)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= GRID_W || y >= GRID_H) return;

    int alive = 0;
    for (int dy = -1; dy <= 1; ++dy) {
        for (int dx = -1; dx <= 1; ++dx) {
            if (dx == 0 && dy == 0) continue;
            int nx = (x + dx + GRID_W) % GRID_W;
            int ny = (y + dy + GRID_H) % GRID_H;
            alive += cur[ny * GRID_W + nx];
        }
    }
    unsigned char self = cur[y * GRID_W + x];
    next[y * GRID_W + x] = (alive == 3 || (alive == 2 && self)) ? 1 : 0;
}

int main()
{
    const size_t cells = (size_t)GRID_W * GRID_H;
    unsigned char* h_grid = (unsigned char*)malloc(cells);
    if (!h_grid) {
        fprintf(stderr, "malloc failed\n");
        return 1;
    }
    size_t alive_before = 0;
    for (size_t i = 0; i < cells; ++i) {
        unsigned int h = (unsigned int)i * 2654435761u;
        h ^= h >> 13;
        h *= 0x5bd1e995u;
        h ^= h >> 15;
        h_grid[i] = (h % 100u) < 30u ? 1 : 0;
        alive_before += h_grid[i];
    }

    unsigned char *d_cur, *d_next;
    CK(cudaMalloc(&d_cur, cells));
    CK(cudaMalloc(&d_next, cells));
    CK(cudaMemcpy(d_cur, h_grid, cells, cudaMemcpyHostToDevice));

    dim3 block(32, 8);
    dim3 grid(GRID_W / 32, GRID_H / 8);
    life_step<<<grid, block>>>(d_cur, d_next);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());

    CK(cudaMemcpy(h_grid, d_next, cells, cudaMemcpyDeviceToHost));

    size_t alive_after = 0;
    unsigned long long pos = 0;
    for (size_t i = 0; i < cells; ++i) {
        alive_after += h_grid[i];
        if (h_grid[i]) pos += (unsigned long long)(i % 1000003);
    }
    printf("life: alive %zu -> %zu, position checksum %llu\n", alive_before, alive_after, pos);

    CK(cudaFree(d_cur));
    CK(cudaFree(d_next));
    free(h_grid);
    return 0;
}
