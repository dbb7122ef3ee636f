// Vector types in global and shared memory: float2/float4 loads use their
// real width (8/16 bytes per lane), shared-memory vector accesses run in
// half-warp (8 bytes) or quarter-warp (16 bytes) phases.
#include "corpus_common.cuh"

__global__ void add_float2(const float2* a, const float2* b, float2* c, int n2) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n2) {
    float2 x = a[i];
    float2 y = b[i];
    c[i] = make_float2(x.x + y.x, x.y + y.y);
  }
}

__global__ void add_float4_reinterpret(const float* a, const float* b, float* c, int n4) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4) {
    float4 x = reinterpret_cast<const float4*>(a)[i];
    float4 y = reinterpret_cast<const float4*>(b)[i];
    reinterpret_cast<float4*>(c)[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
  }
}

// float4 rows of a matrix read by column: each lane its own 16-byte piece
// of a different row.
__global__ void column_of_float4_rows(const float4* m, float4* out, int rows, int row_len4) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) out[r] = m[r * row_len4];  // expect: uncoalesced-global(load, 2x)
}

// float2 in shared memory: consecutive lanes, 2 wavefronts for 2 (one per
// half-warp); stride 2 doubles the wavefronts.
__global__ void shared_float2(const float2* in, float2* out) {
  __shared__ float2 buf[512];
  int t = threadIdx.x;
  buf[t] = in[blockIdx.x * blockDim.x + t];
  buf[t + 256] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  float2 a = buf[t];
  float2 b = buf[2 * t];  // expect: shared-bank-conflict(load, 2-way)
  out[blockIdx.x * blockDim.x + t] = make_float2(a.x + b.x, a.y + b.y);
}

// float4 in shared memory: 4 quarter-warp phases; stride 2 doubles them,
// stride 8 puts each quarter-warp's 8 lanes on the same 4 banks.
__global__ void shared_float4(const float4* in, float4* out) {
  __shared__ float4 buf[2048];
  int t = threadIdx.x;
  for (int k = 0; k < 8; ++k) buf[t + 256 * k] = in[blockIdx.x * 2048 + t + 256 * k];
  __syncthreads();
  float4 a = buf[t];
  float4 b = buf[2 * t];  // expect: shared-bank-conflict(load, 2-way)
  float4 c = buf[8 * t];  // expect: shared-bank-conflict(load, 8-way)
  out[blockIdx.x * blockDim.x + t] = make_float4(a.x + b.x + c.x, a.y + b.y + c.y, a.z + b.z + c.z, a.w + b.w + c.w);
}

// A [64][2] float2 table read by row index = lane: 16 bytes per row, so a
// half-warp's 16 lanes cover 256 bytes: 2 wavefronts per phase.
__global__ void shared_float2_rows(const float2* in, float2* out) {
  __shared__ float2 table[64][2];
  int t = threadIdx.x;
  if (t < 128) table[t / 2][t % 2] = in[t];
  __syncthreads();
  float2 v = table[t % 64][0];  // expect: shared-bank-conflict(load, 2-way)
  out[blockIdx.x * blockDim.x + t] = v;
}

int main() {
  const int n = 1 << 22;
  float* a = device_buffer<float>(n, 1);
  float* b = device_buffer<float>(n, 2);
  float* c = device_zeros<float>(n);

  add_float2<<<n / 2 / 256, 256>>>(reinterpret_cast<const float2*>(a), reinterpret_cast<const float2*>(b),
                                   reinterpret_cast<float2*>(c), n / 2);
  add_float4_reinterpret<<<n / 4 / 256, 256>>>(a, b, c, n / 4);
  column_of_float4_rows<<<(n / 8) / 256, 256>>>(reinterpret_cast<const float4*>(a), reinterpret_cast<float4*>(c),
                                               n / 8, 2);
  shared_float2<<<n / 2 / 256, 256>>>(reinterpret_cast<const float2*>(a), reinterpret_cast<float2*>(c));
  shared_float4<<<n / 4 / 2048, 256>>>(reinterpret_cast<const float4*>(a), reinterpret_cast<float4*>(c));
  shared_float2_rows<<<n / 2 / 256, 256>>>(reinterpret_cast<const float2*>(a), reinterpret_cast<float2*>(c));
  finish("vector_loads");

  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
  return 0;
}
