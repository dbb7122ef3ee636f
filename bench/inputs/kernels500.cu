// A ~500-line CUDA translation unit for bench/first_diagnostics.py: the
// corpus' classic kernels and stencils with their host code, in one file
// that includes cuda_runtime.h (generated once from tests/corpus; labels removed).
// Host helpers shared by the corpus programs: error checking, buffers filled
// with reproducible data, and reading a block size from the command line
// (which makes the block shape unknown to a static analysis, on purpose).

#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                            \
  do {                                                                              \
    cudaError_t err_ = (call);                                                      \
    if (err_ != cudaSuccess) {                                                      \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      std::exit(1);                                                                 \
    }                                                                               \
  } while (0)

template <typename T>
T* device_buffer(size_t count, int seed = 1) {
  std::vector<T> host(count);
  unsigned state = 2463534242u + unsigned(seed);
  for (size_t i = 0; i < count; ++i) {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    host[i] = T(state % 1000) / T(100);
  }
  T* d = nullptr;
  CUDA_CHECK(cudaMalloc(&d, count * sizeof(T)));
  CUDA_CHECK(cudaMemcpy(d, host.data(), count * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

template <typename T>
T* device_zeros(size_t count) {
  T* d = nullptr;
  CUDA_CHECK(cudaMalloc(&d, count * sizeof(T)));
  CUDA_CHECK(cudaMemset(d, 0, count * sizeof(T)));
  return d;
}

inline int int_arg(int argc, char** argv, int index, int fallback) {
  return argc > index ? std::atoi(argv[index]) : fallback;
}

inline void finish(const char* name) {
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  std::printf("%s: ok\n", name);
}

// ---- classic kernels ----
// Kernels in the style of well-known public CUDA code, written for this
// corpus: a samples-style tiled matrix multiply, a work-efficient scan,
// a shared-memory bitonic sort, an n-body tile loop, row softmax, CSR
// sparse matrix-vector products, image conversions and a 3x3 blur through a
// haloed shared tile.
#include <cmath>


// Matrix multiply as the CUDA samples write it: two induction variables
// walking A along a row of tiles and B down a column of tiles.
template <int BLOCK_SIZE>
__global__ void matrix_mul_samples(float* C, const float* A, const float* B, int wA, int wB) {
  int bx = blockIdx.x, by = blockIdx.y;
  int tx = threadIdx.x, ty = threadIdx.y;
  int aBegin = wA * BLOCK_SIZE * by;
  int aEnd = aBegin + wA - 1;
  int aStep = BLOCK_SIZE;
  int bBegin = BLOCK_SIZE * bx;
  int bStep = BLOCK_SIZE * wB;
  float Csub = 0;
  for (int a = aBegin, b = bBegin; a <= aEnd; a += aStep, b += bStep) {
    __shared__ float As[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ float Bs[BLOCK_SIZE][BLOCK_SIZE];
    As[ty][tx] = A[a + wA * ty + tx];
    Bs[ty][tx] = B[b + wB * ty + tx];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BLOCK_SIZE; ++k) Csub += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  int c = wB * BLOCK_SIZE * by + BLOCK_SIZE * bx;
  C[c + wB * ty + tx] = Csub;
}

// Work-efficient (Blelloch) exclusive scan of 512 elements per block of
// 256 threads, without bank-conflict avoidance: each thread loads two
// neighbours (8 bytes apart), and the tree levels walk shared memory with
// strides 2, 4, 8, ... words.
__global__ void prescan_naive(float* g_odata, const float* g_idata, int n) {
  extern __shared__ float temp[];
  const float* in = g_idata + blockIdx.x * n;
  float* out = g_odata + blockIdx.x * n;
  int thid = threadIdx.x;
  int offset = 1;
  temp[2 * thid] = in[2 * thid];  
  temp[2 * thid + 1] = in[2 * thid + 1];  
  for (int d = n >> 1; d > 0; d >>= 1) {
    __syncthreads();
    if (thid < d) {
      int ai = offset * (2 * thid + 1) - 1;
      int bi = offset * (2 * thid + 2) - 1;
      temp[bi] += temp[ai];  
    }
    offset *= 2;
  }
  if (thid == 0) temp[n - 1] = 0;
  for (int d = 1; d < n; d *= 2) {
    offset >>= 1;
    __syncthreads();
    if (thid < d) {
      int ai = offset * (2 * thid + 1) - 1;
      int bi = offset * (2 * thid + 2) - 1;
      float t = temp[ai];  
      temp[ai] = temp[bi];  
      temp[bi] += t;  
    }
  }
  __syncthreads();
  out[2 * thid] = temp[2 * thid];  
  out[2 * thid + 1] = temp[2 * thid + 1];  
}

// Bitonic sort of 512 keys per block (one key per thread) in shared memory.
// The partner index tid ^ j keeps a warp's lanes on distinct words; the
// compare splits every warp in half while j < 32.
__global__ void bitonic_sort_shared(float* keys) {
  __shared__ float s[512];
  unsigned tid = threadIdx.x;
  s[tid] = keys[blockIdx.x * 512 + tid];
  __syncthreads();
  for (unsigned k = 2; k <= 512; k <<= 1) {
    for (unsigned j = k >> 1; j > 0; j >>= 1) {
      unsigned ixj = tid ^ j;
      if (ixj > tid) {  
        bool ascending = (tid & k) == 0;
        float a = s[tid];
        float b = s[ixj];
        if ((a > b) == ascending) {
          s[tid] = b;
          s[ixj] = a;
        }
      }
      __syncthreads();
    }
  }
  keys[blockIdx.x * 512 + tid] = s[tid];
}

// All-pairs n-body: positions staged through shared memory one tile at a
// time, then read by every thread in the same order (broadcasts).
__global__ void nbody_accel(const float4* pos, float4* accel, int n, float eps2) {
  extern __shared__ float4 sh_pos[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float4 me = pos[i];
  float ax = 0.0f, ay = 0.0f, az = 0.0f;
  for (int tile = 0; tile < n / blockDim.x; ++tile) {
    sh_pos[threadIdx.x] = pos[tile * blockDim.x + threadIdx.x];
    __syncthreads();
    for (int j = 0; j < blockDim.x; ++j) {
      float4 other = sh_pos[j];
      float dx = other.x - me.x, dy = other.y - me.y, dz = other.z - me.z;
      float inv = rsqrtf(dx * dx + dy * dy + dz * dz + eps2);
      float s = other.w * inv * inv * inv;
      ax += dx * s;
      ay += dy * s;
      az += dz * s;
    }
    __syncthreads();
  }
  accel[i] = make_float4(ax, ay, az, 0.0f);
}

__device__ float block_max(float v, float* scratch) {
  for (int offset = 16; offset > 0; offset /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffff, v, offset));
  if (threadIdx.x % 32 == 0) scratch[threadIdx.x / 32] = v;
  __syncthreads();
  v = scratch[0];
  for (int w = 1; w < blockDim.x / 32; ++w) v = fmaxf(v, scratch[w]);
  __syncthreads();
  return v;
}

__device__ float block_sum(float v, float* scratch) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffff, v, offset);
  if (threadIdx.x % 32 == 0) scratch[threadIdx.x / 32] = v;
  __syncthreads();
  v = 0.0f;
  for (int w = 0; w < blockDim.x / 32; ++w) v += scratch[w];
  __syncthreads();
  return v;
}

// One block per row; threads stride along the row.
__global__ void softmax_rows(const float* in, float* out, int cols) {
  __shared__ float scratch[32];
  const float* row = in + size_t(blockIdx.x) * cols;
  float* orow = out + size_t(blockIdx.x) * cols;
  float m = -INFINITY;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, row[c]);
  m = block_max(m, scratch);
  float sum = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    float e = __expf(row[c] - m);
    orow[c] = e;
    sum += e;
  }
  float inv = 1.0f / block_sum(sum, scratch);
  for (int c = threadIdx.x; c < cols; c += blockDim.x) orow[c] *= inv;
}

// CSR sparse matrix-vector product, one thread per row: each lane starts
// at its own row's offset, read from memory.
__global__ void spmv_csr_scalar(int rows, const int* row_ptr, const int* col_idx, const float* val, const float* x,
                                float* y) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float dot = 0.0f;
    int start = row_ptr[row];
    int end = row_ptr[row + 1];  
    for (int jj = start; jj < end; ++jj) dot += val[jj] * x[col_idx[jj]];  
    y[row] = dot;
  }
}

// One warp per row: the row's offset is the same for the whole warp, the
// lanes stride along the row; only x[col_idx[jj]] is a gather.
__global__ void spmv_csr_vector(int rows, const int* row_ptr, const int* col_idx, const float* val, const float* x,
                                float* y) {
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  int lane = threadIdx.x & 31;
  if (warp < rows) {
    int start = row_ptr[warp];
    int end = row_ptr[warp + 1];
    float dot = 0.0f;
    for (int jj = start + lane; jj < end; jj += 32) dot += val[jj] * x[col_idx[jj]];  
    for (int offset = 16; offset > 0; offset /= 2) dot += __shfl_down_sync(0xffffffff, dot, offset);
    if (lane == 0) y[warp] = dot;
  }
}

// uchar3 pixels: three 1-byte loads per pixel, 3 bytes apart across lanes.
__global__ void rgb_to_gray(const uchar3* rgb, unsigned char* gray, int pixels) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < pixels) {
    uchar3 p = rgb[i];  
    gray[i] = (unsigned char)(0.299f * p.x + 0.587f * p.y + 0.114f * p.z);
  }
}

// uchar4 pixels: one 4-byte load per pixel.
__global__ void rgba_to_gray(const uchar4* rgba, unsigned char* gray, int pixels) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < pixels) {
    uchar4 p = rgba[i];
    gray[i] = (unsigned char)(0.299f * p.x + 0.587f * p.y + 0.114f * p.z);
  }
}

// float3 vectors normalised in place: three 4-byte loads and stores each,
// 12 bytes apart across lanes.
__global__ void normalize_float3(float3* v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float3 a = v[i];  
    float inv = rsqrtf(a.x * a.x + a.y * a.y + a.z * a.z + 1e-12f);
    v[i] = make_float3(a.x * inv, a.y * inv, a.z * inv);  
  }
}

// A 3x3 box blur through an 18x18 shared tile (16x16 outputs plus a
// one-pixel halo) loaded cooperatively by the 256 threads. A warp's 32
// consecutive tile elements cover pieces of two or three image rows, each
// starting one float before a 64-byte boundary: about 7 sectors for 4. The
// blur reads rows r and r+1 of the tile per warp; 18 words apart, they
// meet in two banks: 2-way.
#define TW 16
__global__ void blur3x3_shared(const float* in, float* out, int W, int H) {
  __shared__ float tile[TW + 2][TW + 2];
  int x = blockIdx.x * TW + threadIdx.x;
  int y = blockIdx.y * TW + threadIdx.y;
  for (int i = threadIdx.y * TW + threadIdx.x; i < (TW + 2) * (TW + 2); i += TW * TW) {
    int ty = i / (TW + 2);
    int tx = i % (TW + 2);
    int gx = min(max(int(blockIdx.x) * TW + tx - 1, 0), W - 1);
    int gy = min(max(int(blockIdx.y) * TW + ty - 1, 0), H - 1);
    tile[ty][tx] = in[gy * W + gx];  
  }
  __syncthreads();
  float s = 0.0f;
  for (int dy = 0; dy < 3; ++dy)
    for (int dx = 0; dx < 3; ++dx) s += tile[threadIdx.y + dy][threadIdx.x + dx];  
  out[y * W + x] = s / 9.0f;
}

static int classic_main() {
  // matrix multiply
  const int wA = 1024, hA = 1024, wB = 1024;
  float* A = device_buffer<float>(size_t(wA) * hA, 1);
  float* B = device_buffer<float>(size_t(wB) * wA, 2);
  float* C = device_zeros<float>(size_t(wB) * hA);
  matrix_mul_samples<16><<<dim3(wB / 16, hA / 16), dim3(16, 16)>>>(C, A, B, wA, wB);
  matrix_mul_samples<32><<<dim3(wB / 32, hA / 32), dim3(32, 32)>>>(C, A, B, wA, wB);

  // scan and sort
  const int scan_n = 512, scan_blocks = 4096;
  float* sin = device_buffer<float>(size_t(scan_n) * scan_blocks);
  float* sout = device_zeros<float>(size_t(scan_n) * scan_blocks);
  prescan_naive<<<scan_blocks, scan_n / 2, scan_n * sizeof(float)>>>(sout, sin, scan_n);
  bitonic_sort_shared<<<scan_blocks, 512>>>(sin);

  // n-body
  const int bodies = 16384;
  float4* pos = device_zeros<float4>(bodies);
  float4* acc = device_zeros<float4>(bodies);
  nbody_accel<<<bodies / 256, 256, 256 * sizeof(float4)>>>(pos, acc, bodies, 0.01f);

  // softmax
  const int rows = 4096, cols = 1024;
  softmax_rows<<<rows, 256>>>(A, C, cols);

  // sparse matrix-vector: a banded matrix with 16 entries per row
  const int nnz_per_row = 16;
  std::vector<int> h_ptr(rows + 1), h_col(size_t(rows) * nnz_per_row);
  for (int r = 0; r <= rows; ++r) h_ptr[r] = r * nnz_per_row;
  for (int r = 0; r < rows; ++r)
    for (int k = 0; k < nnz_per_row; ++k) h_col[size_t(r) * nnz_per_row + k] = (r + k * 37) % rows;
  int* row_ptr = nullptr;
  int* col_idx = nullptr;
  CUDA_CHECK(cudaMalloc(&row_ptr, h_ptr.size() * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&col_idx, h_col.size() * sizeof(int)));
  CUDA_CHECK(cudaMemcpy(row_ptr, h_ptr.data(), h_ptr.size() * sizeof(int), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(col_idx, h_col.data(), h_col.size() * sizeof(int), cudaMemcpyHostToDevice));
  spmv_csr_scalar<<<rows / 128, 128>>>(rows, row_ptr, col_idx, A, B, C);
  spmv_csr_vector<<<rows * 32 / 128, 128>>>(rows, row_ptr, col_idx, A, B, C);

  // images
  const int W = 2048, H = 2048, pixels = W * H;
  uchar3* rgb = device_zeros<uchar3>(pixels);
  uchar4* rgba = device_zeros<uchar4>(pixels);
  unsigned char* gray = device_zeros<unsigned char>(pixels);
  rgb_to_gray<<<pixels / 256, 256>>>(rgb, gray, pixels);
  rgba_to_gray<<<pixels / 256, 256>>>(rgba, gray, pixels);
  float3* vecs = device_zeros<float3>(pixels);
  normalize_float3<<<pixels / 256, 256>>>(vecs, pixels);
  float* img = device_buffer<float>(pixels);
  float* blurred = device_zeros<float>(pixels);
  blur3x3_shared<<<dim3(W / TW, H / TW), dim3(TW, TW)>>>(img, blurred, W, H);
  finish("classic_kernels");

  cudaFree(A);
  cudaFree(B);
  cudaFree(C);
  cudaFree(sin);
  cudaFree(sout);
  cudaFree(pos);
  cudaFree(acc);
  cudaFree(row_ptr);
  cudaFree(col_idx);
  cudaFree(rgb);
  cudaFree(rgba);
  cudaFree(gray);
  cudaFree(vecs);
  cudaFree(img);
  cudaFree(blurred);
  return 0;
}

// ---- stencils ----
// Stencils: 1-D with neighbours on one line or on their own lines, 1-D
// with a shared-memory halo, 2-D five-point in the right and the wrong
// thread order, 3-D seven-point on halo-padded arrays. Arrays carry a halo
// so interior threads never need a bounds check on their neighbours.

#define RADIUS 3
#define BLOCK_1D 256

// Three loads on one line: 4 + 5 + 5 sectors for an ideal of 12 (1.17x),
// so the loads are fine as a line; the store to out[i] (one float past the
// halo) straddles five sectors.
__global__ void stencil1d_one_line(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x + 1;
  if (i <= n)
    out[i] = 0.25f * in[i - 1] + 0.5f * in[i] + 0.25f * in[i + 1];  
}

// The same loads on their own lines. i starts at 1 (the halo), so in[i - 1]
// is the aligned one and in[i], in[i + 1] each straddle five sectors.
__global__ void stencil1d_split(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x + 1;
  if (i <= n) {
    float left = in[i - 1];
    float center = in[i];  
    float right = in[i + 1];  
    out[i - 1] = 0.25f * left + 0.5f * center + 0.25f * right;
  }
}

// The classic shared-memory stencil: the block's run of the input starts
// RADIUS floats past a sector boundary (5 sectors for 4); the halo loads
// of the first RADIUS lanes fit in one sector each.
__global__ void stencil1d_shared(const float* in, float* out, int n) {
  __shared__ float temp[BLOCK_1D + 2 * RADIUS];
  int gindex = blockIdx.x * blockDim.x + threadIdx.x + RADIUS;
  int lindex = threadIdx.x + RADIUS;
  temp[lindex] = in[gindex];  
  if (threadIdx.x < RADIUS) {  
    temp[lindex - RADIUS] = in[gindex - RADIUS];
    temp[lindex + BLOCK_1D] = in[gindex + BLOCK_1D];
  }
  __syncthreads();
  float result = 0.0f;
  for (int offset = -RADIUS; offset <= RADIUS; offset++)
    result += temp[lindex + offset];
  out[gindex - RADIUS] = result;
}

// 32x8 blocks; rows above and below are aligned, left/right neighbours are
// not: 4 + 4 + 5 + 5 + 4 sectors for 20 (1.1x).
__global__ void stencil2d_5pt(const float* in, float* out, int W, int H) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x > 0 && x < W - 1 && y > 0 && y < H - 1)
    out[y * W + x] = in[(y - 1) * W + x] + in[(y + 1) * W + x] + in[y * W + x - 1] + in[y * W + x + 1] - 4.0f * in[y * W + x];
}

// The x-neighbours on their own lines, inside a bounds check that switches
// off lane 0 of each row's first warp and lane 31 of its last: interior
// warps pay 5 sectors for 4, the two edge warps 4 and 5 (or 5 and 4), so
// each line measures 319 / 256 = 1.246 over a 2048-wide row: not reported.
__global__ void stencil2d_split_guarded(const float* in, float* out, int W, int H) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x > 0 && x < W - 1 && y > 0 && y < H - 1) {
    float left = in[y * W + x - 1];
    float right = in[y * W + x + 1];
    out[y * W + x] = 0.5f * (left + right);
  }
}

// threadIdx.x walks y: every access strides by a row.
__global__ void stencil2d_5pt_swapped(const float* in, float* out, int W, int H) {
  int y = blockIdx.x * blockDim.x + threadIdx.x;
  int x = blockIdx.y * blockDim.y + threadIdx.y;
  if (x > 0 && x < W - 1 && y > 0 && y < H - 1)
    out[y * W + x] = in[(y - 1) * W + x] + in[(y + 1) * W + x] + in[y * W + x - 1] + in[y * W + x + 1] - 4.0f * in[y * W + x];  
}

// 7-point stencil on an (nx+2) x (ny+2) x (nz+2) array with 32x4x2 blocks
// (nx = ny = 256). A row of the interior starts at float
// z*plane + y*pitch + 1 with pitch = 258 (2 mod 8) and plane = 66564 (4 mod
// 8): always an odd float, so the centre, y- and z-neighbours and the store
// straddle 5 sectors (1.25x). The x-neighbours start at an even float that
// is a multiple of 8 in one row out of four: 4.75 + 4.75 for 8 (1.19x).
__global__ void stencil3d_7pt(const float* in, float* out, int nx, int ny, int nz) {
  int x = blockIdx.x * blockDim.x + threadIdx.x + 1;
  int y = blockIdx.y * blockDim.y + threadIdx.y + 1;
  int z = blockIdx.z * blockDim.z + threadIdx.z + 1;
  if (x > nx || y > ny || z > nz) return;
  int pitch = nx + 2;
  int plane = pitch * (ny + 2);
  int idx = z * plane + y * pitch + x;
  float c = in[idx];  
  float xs = in[idx - 1] + in[idx + 1];
  float ys = in[idx - pitch] + in[idx + pitch];  
  float zs = in[idx - plane] + in[idx + plane];  
  out[idx] = xs + ys + zs - 6.0f * c;  
}

// The same arrays with x handled by threadIdx.y and y by threadIdx.x.
__global__ void stencil3d_7pt_swapped(const float* in, float* out, int nx, int ny, int nz) {
  int y = blockIdx.x * blockDim.x + threadIdx.x + 1;
  int x = blockIdx.y * blockDim.y + threadIdx.y + 1;
  int z = blockIdx.z * blockDim.z + threadIdx.z + 1;
  if (x > nx || y > ny || z > nz) return;
  int pitch = nx + 2;
  int plane = pitch * (ny + 2);
  int idx = z * plane + y * pitch + x;
  float c = in[idx];  
  out[idx] = c * 0.5f;  
}

static int stencils_main() {
  const int n = 1 << 22;
  float* in = device_buffer<float>(n + 2 * RADIUS + 2);
  float* out = device_zeros<float>(n + 2 * RADIUS + 2);
  stencil1d_one_line<<<n / BLOCK_1D, BLOCK_1D>>>(in, out, n);
  stencil1d_split<<<n / BLOCK_1D, BLOCK_1D>>>(in, out, n);
  stencil1d_shared<<<n / BLOCK_1D, BLOCK_1D>>>(in, out, n);
  cudaFree(in);
  cudaFree(out);

  const int W = 2048, H = 2048;
  float* img = device_buffer<float>(size_t(W) * H);
  float* res = device_zeros<float>(size_t(W) * H);
  stencil2d_5pt<<<dim3(W / 32, H / 8), dim3(32, 8)>>>(img, res, W, H);
  stencil2d_5pt_swapped<<<dim3(H / 32, W / 8), dim3(32, 8)>>>(img, res, W, H);
  stencil2d_split_guarded<<<dim3(W / 32, H / 8), dim3(32, 8)>>>(img, res, W, H);
  cudaFree(img);
  cudaFree(res);

  const int nx = 256, ny = 256, nz = 128;
  const size_t cells = size_t(nx + 2) * (ny + 2) * (nz + 2);
  float* vol = device_buffer<float>(cells);
  float* vout = device_zeros<float>(cells);
  stencil3d_7pt<<<dim3(nx / 32, ny / 4, nz / 2), dim3(32, 4, 2)>>>(vol, vout, nx, ny, nz);
  stencil3d_7pt_swapped<<<dim3(ny / 32, nx / 4, nz / 2), dim3(32, 4, 2)>>>(vol, vout, nx, ny, nz);
  finish("stencils");
  cudaFree(vol);
  cudaFree(vout);
  return 0;
}

int main() { return classic_main() | stencils_main(); }
