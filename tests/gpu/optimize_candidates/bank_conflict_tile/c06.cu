// warplens candidate c06 for kernel `transpose_tiled` (policy builtin)
// plan: unroll(factor=2)
// unroll: 2 innermost loop(s) without #pragma unroll
// note: unroll: unrolling keeps every iteration (the compiler handles remainders)
// Tiled transpose through shared memory, without padding: global loads and
// stores are coalesced, but the read of the tile goes down a column, so all
// 32 lanes of a warp hit the same shared-memory bank (a 32-way conflict).
#include "harness.cuh"

constexpr int TILE = 32;
constexpr int ROWS = 8;  // threads per block: TILE x ROWS, each moves TILE/ROWS elements

__global__ void transpose_tiled(const float* in, float* out, int W, int H) {
  __shared__ float tile[TILE][TILE];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  #pragma unroll 2
  for (int r = 0; r < TILE; r += ROWS) {
    if (x < W && y + r < H) tile[threadIdx.y + r][threadIdx.x] = in[(y + r) * W + x];
  }
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;  // column of `out`
  y = blockIdx.x * TILE + threadIdx.y;  // row of `out`
  #pragma unroll 2
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
  example::Run run(argc, argv, "bank_conflict_tile");
  const int full_w = 8192, full_h = 8192;
  const int odd[][2] = {{1000, 1003}, {33, 4097}, {2049, 31}, {517, 517}};
  for (int set = 0; set < run.sets(); ++set) {
    const int W = set == 0 ? full_w : odd[(set - 1) % 4][0];
    const int H = set == 0 ? full_h : odd[(set - 1) % 4][1];
    const std::size_t n = static_cast<std::size_t>(W) * H;
    float* in = example::device_alloc<float>(n);
    float* out = example::device_alloc<float>(n);
    std::vector<float> h_in = example::fill_uniform(in, n, run.seed(set));
    example::poison(out, n * sizeof(float));
    transpose(in, out, W, H);
    run.sync("transpose");
    std::vector<float> got = example::to_host(out, n), want(n);
    for (int y = 0; y < H; ++y)
      for (int x = 0; x < W; ++x) want[static_cast<std::size_t>(x) * H + y] = h_in[static_cast<std::size_t>(y) * W + x];
    run.check(set, "out", example::compare(got, want, 0.0, 0.0));
    run.check(set, "in (must be unchanged)", example::compare(example::to_host(in, n), h_in, 0.0, 0.0));
    WL_CHECK(cudaFree(in));
    WL_CHECK(cudaFree(out));
  }
  const std::size_t n = static_cast<std::size_t>(full_w) * full_h;
  if (run.timing()) {
    float* in = example::device_alloc<float>(n);
    float* out = example::device_alloc<float>(n);
    example::fill_uniform(in, n, run.seed(0));
    run.time([&] { transpose(in, out, full_w, full_h); });
    WL_CHECK(cudaFree(in));
    WL_CHECK(cudaFree(out));
  }
  return run.finish(2.0 * n * sizeof(float), 0);
}
