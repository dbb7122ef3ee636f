// warplens candidate c02 for kernel `transpose_tiled` (policy builtin)
// plan: pad-shared(pad=1) + restrict-const()
// pad-shared: 32-way bank conflict on shared load of `tile[threadIdx.x][threadIdx.y + r]`: consecutive lanes are 128 bytes apart — 32 wavefronts per request, ideal 1; padding `tile` by 1 (the bank-conflict quick fix) makes it conflict-free; restrict-const: 2 pointer parameter(s) gain const/__restrict__
// note: pad-shared: `tile` has constant extents, is not extern and its address never escapes; every access addresses whole elements: padding its rows changes addresses, not values
// note: pad-shared: the padding (1) is the bank-conflict quick fix's: the conflicted access becomes conflict-free and no other access of `tile` needs more wavefronts (warp model, the kernel's launch shapes)
// note: restrict-const: every launch in the file passes distinct pointer variables (no aliasing)
// note: restrict-const: const added only to pointers the kernel never writes through
// Tiled transpose through an unpadded shared tile: the column read of the
// tile is a 32-way bank conflict.
// usage: bank_conflict_tile [W H]
#include <cstdio>
#include <cstdlib>
#include <vector>

constexpr int TILE = 32;
constexpr int ROWS = 8;  // threads per block: TILE x ROWS, each moves TILE/ROWS elements

__global__ void transpose_tiled(const float* __restrict__ in, float* __restrict__ out, int W, int H) {
  __shared__ float tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int r = 0; r < TILE; r += ROWS) {
    if (x < W && y + r < H) tile[threadIdx.y + r][threadIdx.x] = in[(y + r) * W + x];
  }
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;  // column of `out`
  y = blockIdx.x * TILE + threadIdx.y;  // row of `out`
  for (int r = 0; r < TILE; r += ROWS) {
    if (x < H && y + r < W) out[(y + r) * H + x] = tile[threadIdx.x][threadIdx.y + r];
  }
}

void transpose(const float* in, float* out, int W, int H) {
  dim3 block(TILE, ROWS);
  dim3 grid((W + TILE - 1) / TILE, (H + TILE - 1) / TILE);
  transpose_tiled<<<grid, block>>>(in, out, W, H);
}

int main(int argc, char** argv) {
  const int W = argc > 2 ? std::atoi(argv[1]) : 8192, H = argc > 2 ? std::atoi(argv[2]) : 8192;
  const size_t n = static_cast<size_t>(W) * H;
  std::vector<float> h(n);
  for (size_t i = 0; i < n; ++i) h[i] = static_cast<float>((i * 40503u) % 977) * 0.01f;
  float *in, *out;
  cudaMalloc(&in, n * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  cudaMemcpy(in, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  transpose(in, out, W, H);
  cudaMemcpy(h.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost);
  double sum = 0;
  for (size_t i = 0; i < n; ++i) sum += h[i] * static_cast<double>(i % 5);
  std::printf("transpose_tiled %dx%d checksum %.6f\n", W, H, sum);
  cudaFree(in);
  cudaFree(out);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
