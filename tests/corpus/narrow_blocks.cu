// 2-D blocks narrower than a warp: one warp spans several rows, so what the
// hardware sees depends on the row pitch as well as on threadIdx.x.
#include "corpus_common.cuh"

// 8x32 blocks on floats: a warp is 4 rows of 8 floats, 32 bytes each:
// 4 sectors, ideal 4.
__global__ void scale_8x32(const float* in, float* out, int W, float a) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  out[y * W + x] = a * in[y * W + x];
}

// 8x32 blocks on doubles: 4 rows of 64 bytes: 8 sectors, ideal 8.
__global__ void scale_8x32_double(const double* in, double* out, int W, double a) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  out[y * W + x] = a * in[y * W + x];
}

// 4x64 blocks: a warp is 8 rows of 4 floats (16 bytes): 8 sectors for 4.
__global__ void scale_4x64(const float* in, float* out, int W, float a) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  out[y * W + x] = a * in[y * W + x];  // expect: uncoalesced-global(load, 2x) uncoalesced-global(store, 2x)
}

// Column-major data with 4x64 blocks: threadIdx.y walks the contiguous
// dimension, so each group of 8 lanes reads 32 contiguous bytes: 4 sectors.
__global__ void scale_4x64_column_major(const float* in, float* out, int H, float a) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  out[x * H + y] = a * in[x * H + y];
}

// A [16][16] tile read by column with 16x16 blocks: word tx*16 + ty puts the
// 8 lanes with even tx of one row in one bank: 8-way.
__global__ void tile_column_16x16(const float* in, float* out, int W) {
  __shared__ float tile[16][16];
  int x = blockIdx.x * 16 + threadIdx.x;
  int y = blockIdx.y * 16 + threadIdx.y;
  tile[threadIdx.y][threadIdx.x] = in[y * W + x];
  __syncthreads();
  out[y * W + x] = tile[threadIdx.x][threadIdx.y];  // expect: shared-bank-conflict(load, 8-way)
}

// The same with the tile padded to 17 columns: the read is still 2-way
// (17*15 + 1 = 256 meets word 0 in bank 0), and the row store now wraps:
// words 17..32 of the second row meet word 0 in bank 0.
__global__ void tile_column_16x17(const float* in, float* out, int W) {
  __shared__ float tile[16][17];
  int x = blockIdx.x * 16 + threadIdx.x;
  int y = blockIdx.y * 16 + threadIdx.y;
  tile[threadIdx.y][threadIdx.x] = in[y * W + x];  // expect: shared-bank-conflict(store, 2-way)
  __syncthreads();
  out[y * W + x] = tile[threadIdx.x][threadIdx.y];  // expect: shared-bank-conflict(load, 2-way)
}

// Padded to 18 columns the column read is clean (the two rows of a warp
// fall on even and odd banks), but the row store wraps (words 18..33 meet
// 0 and 1): no padding of a [16][N] tile makes both accesses conflict-free.
__global__ void tile_column_16x18(const float* in, float* out, int W) {
  __shared__ float tile[16][18];
  int x = blockIdx.x * 16 + threadIdx.x;
  int y = blockIdx.y * 16 + threadIdx.y;
  tile[threadIdx.y][threadIdx.x] = in[y * W + x];  // expect: shared-bank-conflict(store, 2-way)
  __syncthreads();
  out[y * W + x] = tile[threadIdx.x][threadIdx.y];
}

// threadIdx.y parity splits a 16-wide warp in two; with 32-wide blocks the
// same test would be warp-uniform.
__global__ void rows_alternate_16x16(const float* in, float* out, int W, int iters) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  float v = in[y * W + x];
  if (threadIdx.y % 2 == 0) {  // expect: warp-divergence
    for (int k = 0; k < iters; ++k) v = v * 0.999f + 0.5f;
  } else {
    for (int k = 0; k < iters; ++k) v = sqrtf(v + float(k));
  }
  out[y * W + x] = v;
}

__global__ void rows_alternate_32x8(const float* in, float* out, int W, int iters) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  float v = in[y * W + x];
  if (threadIdx.y % 2 == 0) {
    for (int k = 0; k < iters; ++k) v = v * 0.999f + 0.5f;
  } else {
    for (int k = 0; k < iters; ++k) v = sqrtf(v + float(k));
  }
  out[y * W + x] = v;
}

int main() {
  const int W = 2048, H = 2048;
  const size_t count = size_t(W) * H;
  float* in = device_buffer<float>(count);
  float* out = device_zeros<float>(count);
  double* din = device_buffer<double>(count);
  double* dout = device_zeros<double>(count);

  scale_8x32<<<dim3(W / 8, H / 32), dim3(8, 32)>>>(in, out, W, 2.0f);
  scale_8x32_double<<<dim3(W / 8, H / 32), dim3(8, 32)>>>(din, dout, W, 2.0);
  scale_4x64<<<dim3(W / 4, H / 64), dim3(4, 64)>>>(in, out, W, 2.0f);
  scale_4x64_column_major<<<dim3(W / 4, H / 64), dim3(4, 64)>>>(in, out, H, 2.0f);
  dim3 block16(16, 16);
  dim3 grid16(W / 16, H / 16);
  tile_column_16x16<<<grid16, block16>>>(in, out, W);
  tile_column_16x17<<<grid16, block16>>>(in, out, W);
  tile_column_16x18<<<grid16, block16>>>(in, out, W);
  rows_alternate_16x16<<<grid16, block16>>>(in, out, W, 64);
  rows_alternate_32x8<<<dim3(W / 32, H / 8), dim3(32, 8)>>>(in, out, W, 64);
  finish("narrow_blocks");

  cudaFree(in);
  cudaFree(out);
  cudaFree(din);
  cudaFree(dout);
  return 0;
}
