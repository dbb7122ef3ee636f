// test: kernel=transpose_tiled rewrite=pad-shared
// expect: applies
// expect-output: __shared__ float tile[TILE][TILE + 1];
// expect-motivation: 32-way bank conflict
#define TILE 32
__global__ void transpose_tiled(const float* in, float* out, int n) {
  __shared__ float tile[TILE][TILE];
  int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
  for (int r = 0; r < TILE; r += 8) tile[threadIdx.y + r][threadIdx.x] = in[(y + r) * n + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  for (int r = 0; r < TILE; r += 8) out[(y + r) * n + x] = tile[threadIdx.x][threadIdx.y + r];
}
void launch(const float* in, float* out, int n) {
  transpose_tiled<<<dim3(n / TILE, n / TILE), dim3(TILE, 8)>>>(in, out, n);
}
