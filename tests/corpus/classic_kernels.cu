// Kernels in the style of well-known public CUDA code, written for this
// corpus: a samples-style tiled matrix multiply, a work-efficient scan,
// a shared-memory bitonic sort, an n-body tile loop, row softmax, CSR
// sparse matrix-vector products, image conversions and a 3x3 blur through a
// haloed shared tile.
#include <cmath>

#include "corpus_common.cuh"

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

// Work-efficient (Blelloch) scan, 512 elements per block of 256 threads, no
// bank-conflict avoidance: the tree levels walk strides 2, 4, 8, ... words.
// temp[2*thid], temp[2*thid+1] is one 8-byte access (H200: conflict-free,
// access_merging.h); the global pair stays two 4-byte accesses (2x).
__global__ void prescan_naive(float* g_odata, const float* g_idata, int n) {
  extern __shared__ float temp[];
  const float* in = g_idata + blockIdx.x * n;
  float* out = g_odata + blockIdx.x * n;
  int thid = threadIdx.x;
  int offset = 1;
  temp[2 * thid] = in[2 * thid];  // expect: uncoalesced-global(load, 2x)
  temp[2 * thid + 1] = in[2 * thid + 1];  // expect: uncoalesced-global(load, 2x)
  for (int d = n >> 1; d > 0; d >>= 1) {
    __syncthreads();
    if (thid < d) {
      int ai = offset * (2 * thid + 1) - 1;
      int bi = offset * (2 * thid + 2) - 1;
      temp[bi] += temp[ai];  // expect: shared-bank-conflict(load) shared-bank-conflict(store)
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
      float t = temp[ai];  // expect: shared-bank-conflict(load)
      temp[ai] = temp[bi];  // expect: shared-bank-conflict(load) shared-bank-conflict(store)
      temp[bi] += t;  // expect: shared-bank-conflict(load) shared-bank-conflict(store)
    }
  }
  __syncthreads();
  out[2 * thid] = temp[2 * thid];  // expect: uncoalesced-global(store, 2x)
  out[2 * thid + 1] = temp[2 * thid + 1];  // expect: uncoalesced-global(store, 2x)
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
      if (ixj > tid) {  // expect: warp-divergence
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
    int end = row_ptr[row + 1];  // expect: uncoalesced-global(load, 1.25x)
    for (int jj = start; jj < end; ++jj) dot += val[jj] * x[col_idx[jj]];  // expect: uncoalesced-global(load)@info
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
    for (int jj = start + lane; jj < end; jj += 32) dot += val[jj] * x[col_idx[jj]];  // expect: uncoalesced-global(load)@info
    for (int offset = 16; offset > 0; offset /= 2) dot += __shfl_down_sync(0xffffffff, dot, offset);
    if (lane == 0) y[warp] = dot;
  }
}

// uchar3 pixels: three 1-byte loads per pixel, 3 bytes apart across lanes.
__global__ void rgb_to_gray(const uchar3* rgb, unsigned char* gray, int pixels) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < pixels) {
    uchar3 p = rgb[i];  // expect: uncoalesced-global(load, 3x)
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
    float3 a = v[i];  // expect: uncoalesced-global(load, 3x)
    float inv = rsqrtf(a.x * a.x + a.y * a.y + a.z * a.z + 1e-12f);
    v[i] = make_float3(a.x * inv, a.y * inv, a.z * inv);  // expect: uncoalesced-global(store, 3x)
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
    tile[ty][tx] = in[gy * W + gx];  // expect: uncoalesced-global(load)
  }
  __syncthreads();
  float s = 0.0f;
  for (int dy = 0; dy < 3; ++dy)
    for (int dx = 0; dx < 3; ++dx) s += tile[threadIdx.y + dy][threadIdx.x + dx];  // expect: shared-bank-conflict(load, 2-way)
  out[y * W + x] = s / 9.0f;
}

int main() {
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
  // Its own rows x cols buffers: A and C hold only 1024 x 1024 floats (the
  // H200 run of 2026-11-30 faulted here when softmax read A).
  float* logits = device_buffer<float>(size_t(rows) * cols, 3);
  float* probs = device_zeros<float>(size_t(rows) * cols);
  softmax_rows<<<rows, 256>>>(logits, probs, cols);

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
