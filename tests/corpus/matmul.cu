// Matrix multiply (naive and tiled, in both thread orders) and
// matrix-vector products. Row-major matrices; 16x16 blocks for the
// matrix kernels, 32x32 for the large-tile one, 256 threads for matvec.
#include "corpus_common.cuh"

#define TILE 16
#define BIG_TILE 32

// threadIdx.x walks columns: B and C are read/written along rows, A is a
// broadcast within each half-warp row.
__global__ void matmul_naive(const float* A, const float* B, float* C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float sum = 0.0f;
    for (int k = 0; k < K; ++k)
      sum += A[row * K + k] * B[k * N + col];
    C[row * N + col] = sum;
  }
}

// threadIdx.x walks rows: A is read down a column (16 rows per warp), C is
// written down a column.
__global__ void matmul_naive_swapped(const float* A, const float* B, float* C, int M, int N, int K) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  int col = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N) {
    float sum = 0.0f;
    for (int k = 0; k < K; ++k)
      sum += A[row * K + k] * B[k * N + col];  // expect: uncoalesced-global(load, 4x)
    C[row * N + col] = sum;  // expect: uncoalesced-global(store, 4x)
  }
}

__global__ void matmul_tiled(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TILE + ty;
  int col = blockIdx.x * TILE + tx;
  float sum = 0.0f;
  for (int t = 0; t < K / TILE; ++t) {
    As[ty][tx] = A[row * K + t * TILE + tx];
    Bs[ty][tx] = B[(t * TILE + ty) * N + col];
    __syncthreads();
    for (int k = 0; k < TILE; ++k)
      sum += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  C[row * N + col] = sum;
}

// The same tiles with threadIdx.x walking rows: every global access strides
// by a row, and [16][16] tiles indexed [tx][...] put the 8 even (and the 8
// odd) rows of a warp in one bank.
__global__ void matmul_tiled_swapped(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TILE + tx;
  int col = blockIdx.x * TILE + ty;
  float sum = 0.0f;
  for (int t = 0; t < K / TILE; ++t) {
    As[tx][ty] = A[row * K + t * TILE + ty];  // expect: uncoalesced-global(load, 4x) shared-bank-conflict(store, 8-way)
    Bs[tx][ty] = B[(t * TILE + tx) * N + col];  // expect: uncoalesced-global(load, 4x) shared-bank-conflict(store, 8-way)
    __syncthreads();
    for (int k = 0; k < TILE; ++k)
      sum += As[tx][k] * Bs[k][ty];  // expect: shared-bank-conflict(load)
    __syncthreads();
  }
  C[row * N + col] = sum;  // expect: uncoalesced-global(store, 4x)
}

__global__ void matmul_tiled_32(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float As[BIG_TILE][BIG_TILE];
  __shared__ float Bs[BIG_TILE][BIG_TILE];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * BIG_TILE + ty;
  int col = blockIdx.x * BIG_TILE + tx;
  float sum = 0.0f;
  for (int t = 0; t < K / BIG_TILE; ++t) {
    As[ty][tx] = A[row * K + t * BIG_TILE + tx];
    Bs[ty][tx] = B[(t * BIG_TILE + ty) * N + col];
    __syncthreads();
#pragma unroll 8
    for (int k = 0; k < BIG_TILE; ++k)
      sum += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  C[row * N + col] = sum;
}

// One thread per row: the lanes of a warp read 32 different rows.
__global__ void matvec_row_per_thread(const float* A, const float* x, float* y, int m, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m) {
    float sum = 0.0f;
    for (int j = 0; j < n; ++j)
      sum += A[row * n + j] * x[j];  // expect: uncoalesced-global(load, 8x)
    y[row] = sum;
  }
}

// Column-major A: the same loop reads 32 consecutive elements per step.
__global__ void matvec_column_major(const float* A, const float* x, float* y, int m, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m) {
    float sum = 0.0f;
    for (int j = 0; j < n; ++j)
      sum += A[j * m + row] * x[j];
    y[row] = sum;
  }
}

// One warp per row, lanes striding along it, then a shuffle reduction.
__global__ void matvec_warp_per_row(const float* A, const float* x, float* y, int m, int n) {
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  int lane = threadIdx.x % 32;
  if (warp >= m) return;
  float sum = 0.0f;
  for (int j = lane; j < n; j += 32)
    sum += A[warp * n + j] * x[j];
  for (int offset = 16; offset > 0; offset /= 2)
    sum += __shfl_down_sync(0xffffffff, sum, offset);
  if (lane == 0) y[warp] = sum;
}

int main() {
  const int M = 1024, N = 1024, K = 1024;
  float* A = device_buffer<float>(size_t(M) * K, 1);
  float* B = device_buffer<float>(size_t(K) * N, 2);
  float* C = device_zeros<float>(size_t(M) * N);
  float* x = device_buffer<float>(N, 3);
  float* y = device_zeros<float>(M);

  dim3 block(TILE, TILE);
  dim3 grid(N / TILE, M / TILE);
  matmul_naive<<<grid, block>>>(A, B, C, M, N, K);
  matmul_naive_swapped<<<dim3(M / TILE, N / TILE), block>>>(A, B, C, M, N, K);
  matmul_tiled<<<grid, block>>>(A, B, C, M, N, K);
  matmul_tiled_swapped<<<grid, block>>>(A, B, C, M, N, K);
  matmul_tiled_32<<<dim3(N / BIG_TILE, M / BIG_TILE), dim3(BIG_TILE, BIG_TILE)>>>(A, B, C, M, N, K);

  matvec_row_per_thread<<<M / 256, 256>>>(A, x, y, M, N);
  matvec_column_major<<<M / 256, 256>>>(A, x, y, M, N);
  matvec_warp_per_row<<<M * 32 / 256, 256>>>(A, x, y, M, N);
  finish("matmul");

  cudaFree(A);
  cudaFree(B);
  cudaFree(C);
  cudaFree(x);
  cudaFree(y);
  return 0;
}
