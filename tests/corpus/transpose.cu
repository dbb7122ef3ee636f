// Matrix transposes: naive (writing or reading columns), through a shared
// tile, through a padded tile, in float and double. 32x8 blocks, each
// thread handles TILE_DIM / BLOCK_ROWS elements (the classic CUDA sample).
#include "corpus_common.cuh"

#define TILE_DIM 32
#define BLOCK_ROWS 8

__global__ void copy_tile(float* odata, const float* idata, int width) {
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    odata[(y + j) * width + x] = idata[(y + j) * width + x];
}

// Reads rows, writes columns: each lane's store lands in its own sector.
__global__ void transpose_naive(float* odata, const float* idata, int width, int height) {
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    odata[x * height + (y + j)] = idata[(y + j) * width + x];  // expect: uncoalesced-global(store, 8x)
}

// The other way round: reads columns, writes rows.
__global__ void transpose_naive_read_columns(float* odata, const float* idata, int width, int height) {
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    odata[(y + j) * height + x] = idata[x * width + (y + j)];  // expect: uncoalesced-global(load, 8x)
}

// Through shared memory: both global sides coalesced, but the column read of
// the tile puts all 32 lanes in one bank.
__global__ void transpose_tiled(float* odata, const float* idata, int width, int height) {
  __shared__ float tile[TILE_DIM][TILE_DIM];
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];
  __syncthreads();
  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    odata[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];  // expect: shared-bank-conflict(load, 32-way)
}

// One extra column shifts each row by one bank: conflict-free.
__global__ void transpose_padded(float* odata, const float* idata, int width, int height) {
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];
  __syncthreads();
  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    odata[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

// The tile written by columns instead: the store conflicts, the read does not.
__global__ void transpose_tiled_column_store(float* odata, const float* idata, int width, int height) {
  __shared__ float tile[TILE_DIM][TILE_DIM];
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    tile[threadIdx.x][threadIdx.y + j] = idata[(y + j) * width + x];  // expect: shared-bank-conflict(store, 32-way)
  __syncthreads();
  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    odata[(y + j) * height + x] = tile[threadIdx.y + j][threadIdx.x];
}

// Doubles: 8-byte accesses run in two half-warp phases; the column read
// puts 16 distinct words in each of two banks per phase.
__global__ void transpose_tiled_double(double* odata, const double* idata, int width, int height) {
  __shared__ double tile[TILE_DIM][TILE_DIM];
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];
  __syncthreads();
  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    odata[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];  // expect: shared-bank-conflict(load, 16-way)
}

__global__ void transpose_padded_double(double* odata, const double* idata, int width, int height) {
  __shared__ double tile[TILE_DIM][TILE_DIM + 1];
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];
  __syncthreads();
  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    odata[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

int main() {
  const int width = 2048, height = 2048;
  const size_t count = size_t(width) * height;
  float* in = device_buffer<float>(count);
  float* out = device_zeros<float>(count);
  double* din = device_buffer<double>(count);
  double* dout = device_zeros<double>(count);
  dim3 grid(width / TILE_DIM, height / TILE_DIM);
  dim3 block(TILE_DIM, BLOCK_ROWS);

  copy_tile<<<grid, block>>>(out, in, width);
  transpose_naive<<<grid, block>>>(out, in, width, height);
  transpose_naive_read_columns<<<grid, block>>>(out, in, width, height);
  transpose_tiled<<<grid, block>>>(out, in, width, height);
  transpose_padded<<<grid, block>>>(out, in, width, height);
  transpose_tiled_column_store<<<grid, block>>>(out, in, width, height);
  transpose_tiled_double<<<grid, block>>>(dout, din, width, height);
  transpose_padded_double<<<grid, block>>>(dout, din, width, height);
  finish("transpose");

  cudaFree(in);
  cudaFree(out);
  cudaFree(din);
  cudaFree(dout);
  return 0;
}
