// Copies: the basic global-memory coalescing patterns.
// Labels: see README.md. Every kernel is launched from main with a constant
// block, so the block shape is known.
#include "corpus_common.cuh"

__global__ void copy_coalesced(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}

// Every fourth element: lanes 16 bytes apart, 16 sectors for 4.
__global__ void copy_strided(const float* in, float* out, int n, int stride) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i * stride];  // expect: uncoalesced-global(load, 4x)
}

// Reading backwards is still one contiguous 128-byte run per warp.
__global__ void copy_reversed(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[n - 1 - i];
}

// One element off: every warp straddles five sectors instead of four.
__global__ void copy_offset(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i + 1];  // expect: uncoalesced-global(load, 1.25x)
}

__global__ void copy_grid_stride(const float* __restrict__ in, float* __restrict__ out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    out[i] = in[i];
}

// A stride only known at run time: lanes `stride` elements apart.
__global__ void copy_strided_runtime(const float* in, float* out, int n, int stride) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = in[i * stride];  // expect: uncoalesced-global(load)
    out[i] = v;
  }
}

// Each thread copies a whole row: the lanes of a warp are a row apart.
__global__ void copy_row_per_thread(const float* in, float* out, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  for (int j = 0; j < cols; ++j)
    out[row * cols + j] = in[row * cols + j];  // expect: uncoalesced-global(load, 8x) uncoalesced-global(store, 8x)
}

// Each thread copies a column: in every iteration the warp reads one row segment.
__global__ void copy_column_per_thread(const float* in, float* out, int rows, int cols) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col >= cols) return;
  for (int r = 0; r < rows; ++r)
    out[r * cols + col] = in[r * cols + col];
}

__global__ void copy_double_every_other(const double* in, double* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[2 * i];  // expect: uncoalesced-global(load, 2x)
}

__global__ void copy_float4(const float* in, float* out, int n4) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4) reinterpret_cast<float4*>(out)[i] = reinterpret_cast<const float4*>(in)[i];
}

__global__ void copy_float4_every_other(const float4* in, float4* out, int n4) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4) out[i] = in[2 * i];  // expect: uncoalesced-global(load, 2x)
}

__global__ void copy_bytes(const unsigned char* in, unsigned char* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}

// One channel of RGBA pixels: 32 one-byte loads spread over 128 bytes.
__global__ void extract_alpha(const unsigned char* rgba, unsigned char* alpha, int pixels) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < pixels) alpha[i] = rgba[4 * i + 3];  // expect: uncoalesced-global(load, 4x)
}

// Scatter with a constant stride: the store is the expensive side.
__global__ void scatter_strided(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = in[i] * 2.0f;
    out[i * 8] = v;  // expect: uncoalesced-global(store, 8x)
  }
}

int main(int argc, char** argv) {
  const int n = 1 << 22;
  const int rows = 4096, cols = 1024;
  const int stride = int_arg(argc, argv, 1, 2);
  float* in = device_buffer<float>(size_t(n) * 8 + 8);
  float* out = device_zeros<float>(size_t(n) * 8);
  double* din = device_buffer<double>(size_t(n) * 2);
  double* dout = device_zeros<double>(n);
  unsigned char* bytes = device_buffer<unsigned char>(size_t(n) * 4);
  unsigned char* bout = device_zeros<unsigned char>(n);
  const int blocks = n / 256;

  copy_coalesced<<<blocks, 256>>>(in, out, n);
  copy_strided<<<blocks, 256>>>(in, out, n, 4);
  copy_reversed<<<blocks, 256>>>(in, out, n);
  copy_offset<<<blocks, 256>>>(in, out, n);
  copy_grid_stride<<<1024, 256>>>(in, out, n);
  copy_strided_runtime<<<blocks, 256>>>(in, out, n, stride);
  copy_row_per_thread<<<rows / 128, 128>>>(in, out, rows, cols);
  copy_column_per_thread<<<cols / 128, 128>>>(in, out, rows, cols);
  copy_double_every_other<<<blocks, 256>>>(din, dout, n);
  copy_float4<<<n / 4 / 256, 256>>>(in, out, n / 4);
  copy_float4_every_other<<<n / 4 / 256, 256>>>(reinterpret_cast<const float4*>(in),
                                                 reinterpret_cast<float4*>(out), n / 4);
  dim3 block(256);
  copy_bytes<<<blocks, block>>>(bytes, bout, n);
  extract_alpha<<<blocks, block>>>(bytes, bout, n);
  scatter_strided<<<blocks, block>>>(in, out, n);
  finish("copies");

  cudaFree(in);
  cudaFree(out);
  cudaFree(din);
  cudaFree(dout);
  cudaFree(bytes);
  cudaFree(bout);
  return 0;
}
