// Three 2048 x 2048 float transposes for the profiler's GPU tests and
// fixtures (the kernels of the CUPTI reference probe, in one program).
//
//   transpose_naive   load coalesced; the store on the same line is strided
//                     by N floats: 32 sectors per warp request instead of 4
//   transpose_tiled   through a [32][32] shared tile: global accesses
//                     coalesced, the column read of the tile is a 32-way
//                     bank conflict
//   transpose_padded  the tile padded to [32][33]: everything at its ideal
//
// Usage: profiler_transpose [REPEAT]   launches each kernel REPEAT times
// (default 1) and checks the result; exit code 0 when correct.
// Built by the tests with nvcc -lineinfo -O3 -arch=<the GPU's>. The line
// numbers of the marked lines are part of the recorded fixtures: keep them.
#include <cstdio>
#include <cstdlib>
#include <vector>

constexpr int N = 2048;
constexpr int TILE = 32;

__global__ void transpose_naive(float* out, const float* in) {
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  out[x * N + y] = in[y * N + x];  // LINE naive: coalesced load, strided store
}

__global__ void transpose_tiled(float* out, const float* in) {
  __shared__ float tile[TILE][TILE];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  tile[threadIdx.y][threadIdx.x] = in[y * N + x];  // LINE tiled-write
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  out[y * N + x] = tile[threadIdx.x][threadIdx.y];  // LINE tiled-read: 32-way conflict
}

__global__ void transpose_padded(float* out, const float* in) {
  __shared__ float tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  tile[threadIdx.y][threadIdx.x] = in[y * N + x];  // LINE padded-write
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  out[y * N + x] = tile[threadIdx.x][threadIdx.y];  // LINE padded-read
}

static bool check(const std::vector<float>& out, const std::vector<float>& in, const char* name) {
  for (int y = 0; y < N; ++y)
    for (int x = 0; x < N; ++x)
      if (out[x * N + y] != in[y * N + x]) {
        std::fprintf(stderr, "%s: wrong result at (%d, %d)\n", name, x, y);
        return false;
      }
  return true;
}

int main(int argc, char** argv) {
  const int repeat = argc > 1 ? std::atoi(argv[1]) : 1;
  std::vector<float> in(N * N), out(N * N);
  for (int i = 0; i < N * N; ++i) in[i] = float(i % 1000) * 0.5f;
  float *d_in = nullptr, *d_out = nullptr;
  if (cudaMalloc(&d_in, sizeof(float) * N * N) != cudaSuccess ||
      cudaMalloc(&d_out, sizeof(float) * N * N) != cudaSuccess) {
    std::fprintf(stderr, "cudaMalloc failed\n");
    return 2;
  }
  cudaMemcpy(d_in, in.data(), sizeof(float) * N * N, cudaMemcpyHostToDevice);
  dim3 grid(N / TILE, N / TILE), block(TILE, TILE);
  bool ok = true;
  struct Kernel {
    void (*fn)(float*, const float*);
    const char* name;
  } kernels[] = {{transpose_naive, "naive"}, {transpose_tiled, "tiled"}, {transpose_padded, "padded"}};
  for (const Kernel& k : kernels) {
    for (int r = 0; r < repeat; ++r) k.fn<<<grid, block>>>(d_out, d_in);
    cudaMemcpy(out.data(), d_out, sizeof(float) * N * N, cudaMemcpyDeviceToHost);
    ok = check(out, in, k.name) && ok;
    cudaMemset(d_out, 0, sizeof(float) * N * N);
  }
  if (cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess) {
    std::fprintf(stderr, "CUDA error: %s\n", cudaGetErrorString(e));
    return 2;
  }
  cudaFree(d_in);
  cudaFree(d_out);
  std::printf("transposes %s (%d launch%s each)\n", ok ? "correct" : "WRONG", repeat,
              repeat == 1 ? "" : "es");
  return ok ? 0 : 1;
}
