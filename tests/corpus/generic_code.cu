// Templates, device functions called from kernels, and macros: the access
// is written once and judged in the context of each kernel (or
// instantiation) that reaches it; the worst decides the line.
#include "corpus_common.cuh"

#define IDX2C(i, j, ld) (((j) * (ld)) + (i))  // column-major, as in the cuBLAS samples
#define LOAD(p, i) ((p)[(i)])
#define GLOBAL_ID (blockIdx.x * blockDim.x + threadIdx.x)

template <typename T>
__global__ void axpy(T a, const T* x, T* y, int n) {
  int i = GLOBAL_ID;
  if (i < n) y[i] = a * x[i] + y[i];
}

// Two instantiations on one line: STRIDE 1 is coalesced, STRIDE 4 reads
// 16 sectors for 4; the line sums both (20 for 8).
template <int STRIDE>
__global__ void gather_stride(const float* in, float* out, int n) {
  int i = GLOBAL_ID;
  if (i < n) out[i] = in[i * STRIDE];  // expect: uncoalesced-global(load)
}

template <typename T>
__global__ void every_other(const T* in, T* out, int n) {
  int i = GLOBAL_ID;
  if (i < n) out[i] = in[2 * i];  // expect: uncoalesced-global(load, 2x)
}

template <int TILE_W>
__global__ void transpose_tile_t(float* out, const float* in, int width) {
  __shared__ float tile[TILE_W][TILE_W];
  int x = blockIdx.x * TILE_W + threadIdx.x;
  int y = blockIdx.y * TILE_W + threadIdx.y;
  tile[threadIdx.y][threadIdx.x] = in[y * width + x];
  __syncthreads();
  x = blockIdx.y * TILE_W + threadIdx.x;
  y = blockIdx.x * TILE_W + threadIdx.y;
  out[y * width + x] = tile[threadIdx.x][threadIdx.y];  // expect: shared-bank-conflict(load, 32-way)
}

// A device function reached from two kernels: coalesced from one,
// a row apart per lane from the other.
__device__ __forceinline__ float fetch(const float* base, int index) {
  return base[index];  // expect: uncoalesced-global(load)
}

__global__ void column_sums(const float* A, float* out, int rows, int cols) {
  int col = GLOBAL_ID;
  if (col >= cols) return;
  float s = 0.0f;
  for (int r = 0; r < rows; ++r) s += fetch(A, r * cols + col);
  out[col] = s;
}

__global__ void row_sums(const float* A, float* out, int rows, int cols) {
  int row = GLOBAL_ID;
  if (row >= rows) return;
  float s = 0.0f;
  for (int c = 0; c < cols; ++c) s += fetch(A, row * cols + c);
  out[row] = s;
}

// A device function given a pointer into the row a thread owns.
__device__ float dot(const float* row, const float* x, int n) {
  float s = 0.0f;
  for (int j = 0; j < n; ++j) s += row[j] * x[j];  // expect: uncoalesced-global(load)
  return s;
}

__global__ void matvec_through_device_function(const float* A, const float* x, float* y, int m, int n) {
  int r = GLOBAL_ID;
  if (r < m) y[r] = dot(A + r * n, x, n);
}

// A device function writing pairs: two 4-byte stores 8 bytes apart per lane.
__device__ void store_pair(float* out, int i, float a, float b) {
  out[2 * i] = a;  // expect: uncoalesced-global(store, 2x)
  out[2 * i + 1] = b;  // expect: uncoalesced-global(store, 2x)
}

__global__ void split_complex(const float* re, const float* im, float* interleaved, int n) {
  int i = GLOBAL_ID;
  if (i < n) store_pair(interleaved, i, re[i], im[i]);
}

// Column-major indexing through a macro: i (contiguous) from threadIdx.x.
__global__ void scale_column_major(float* A, int lda, float a) {
  int i = GLOBAL_ID;
  int j = blockIdx.y;
  A[IDX2C(i, j, lda)] *= a;
}

// The same macro with the indices swapped: each lane its own column.
__global__ void scale_column_major_swapped(float* A, int lda, float a) {
  int i = blockIdx.y;
  int j = GLOBAL_ID;
  A[IDX2C(i, j, lda)] *= a;  // expect: uncoalesced-global(load, 8x) uncoalesced-global(store, 8x)
}

// The whole access inside a macro.
__global__ void every_other_macro(const float* in, float* out, int n) {
  int i = GLOBAL_ID;
  if (i < n) out[i] = LOAD(in, i * 2);  // expect: uncoalesced-global(load, 2x)
}

int main() {
  const int n = 1 << 22;
  const int rows = 2048, cols = 2048;
  float* f_in = device_buffer<float>(size_t(n) * 4);
  float* f_out = device_zeros<float>(size_t(n) * 2);
  double* d_in = device_buffer<double>(size_t(n) * 2);
  double* d_out = device_zeros<double>(n);
  const int blocks = n / 256;

  axpy<float><<<blocks, 256>>>(2.0f, f_in, f_out, n);
  axpy<double><<<blocks, 256>>>(2.0, d_in, d_out, n);
  gather_stride<1><<<blocks, 256>>>(f_in, f_out, n);
  gather_stride<4><<<blocks, 256>>>(f_in, f_out, n);
  every_other<float><<<blocks, 256>>>(f_in, f_out, n);
  every_other<double><<<blocks, 256>>>(d_in, d_out, n);
  transpose_tile_t<32><<<dim3(cols / 32, rows / 32), dim3(32, 32)>>>(f_out, f_in, cols);

  column_sums<<<cols / 128, 128>>>(f_in, f_out, rows, cols);
  row_sums<<<rows / 128, 128>>>(f_in, f_out, rows, cols);
  matvec_through_device_function<<<rows / 128, 128>>>(f_in, f_in, f_out, rows, cols);
  split_complex<<<blocks, 256>>>(f_in, f_in + n, f_out, n);

  scale_column_major<<<dim3(rows / 256, cols), 256>>>(f_out, rows, 2.0f);
  scale_column_major_swapped<<<dim3(cols / 256, rows), 256>>>(f_out, rows, 2.0f);
  every_other_macro<<<blocks, 256>>>(f_in, f_out, n);
  finish("generic_code");

  cudaFree(f_in);
  cudaFree(f_out);
  cudaFree(d_in);
  cudaFree(d_out);
  return 0;
}
