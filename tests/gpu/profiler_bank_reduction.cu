// Block-wide sum reductions in shared memory, three classic variants, for
// the profiler's GPU tests and fixtures:
//
//   reduce_interleaved  sdata[2*s*tid] += sdata[2*s*tid + s]: lanes 2s words
//                       apart, so 2-, 4-, ... 16-way bank conflicts
//   reduce_modulo       if (tid % (2*s) == 0): warps diverge (only every
//                       2s-th lane works), but each lane reads its own
//                       word sdata[tid]: no bank conflict
//   reduce_sequential   sdata[tid] += sdata[tid + s]: conflict-free, warps
//                       diverge only in the last five steps
//
// Usage: profiler_bank_reduction [REPEAT]; exit code 0 when the sums are right.
#include <cstdio>
#include <cstdlib>
#include <vector>

constexpr int kBlock = 256;
constexpr int kBlocks = 4096;

__global__ void reduce_interleaved(const int* in, int* out) {
  __shared__ int sdata[kBlock];
  unsigned tid = threadIdx.x;
  sdata[tid] = in[blockIdx.x * kBlock + tid];
  __syncthreads();
  for (unsigned s = 1; s < kBlock; s *= 2) {
    unsigned index = 2 * s * tid;
    if (index < kBlock) sdata[index] += sdata[index + s];  // LINE interleaved
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

__global__ void reduce_modulo(const int* in, int* out) {
  __shared__ int sdata[kBlock];
  unsigned tid = threadIdx.x;
  sdata[tid] = in[blockIdx.x * kBlock + tid];
  __syncthreads();
  for (unsigned s = 1; s < kBlock; s *= 2) {
    if (tid % (2 * s) == 0) sdata[tid] += sdata[tid + s];  // LINE modulo
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

__global__ void reduce_sequential(const int* in, int* out) {
  __shared__ int sdata[kBlock];
  unsigned tid = threadIdx.x;
  sdata[tid] = in[blockIdx.x * kBlock + tid];
  __syncthreads();
  for (unsigned s = kBlock / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];  // LINE sequential
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

int main(int argc, char** argv) {
  const int repeat = argc > 1 ? std::atoi(argv[1]) : 1;
  const int n = kBlock * kBlocks;
  std::vector<int> in(n), out(kBlocks);
  for (int i = 0; i < n; ++i) in[i] = i % 7;
  std::vector<int> expected(kBlocks, 0);
  for (int i = 0; i < n; ++i) expected[i / kBlock] += in[i];
  int *d_in = nullptr, *d_out = nullptr;
  if (cudaMalloc(&d_in, sizeof(int) * n) != cudaSuccess ||
      cudaMalloc(&d_out, sizeof(int) * kBlocks) != cudaSuccess) {
    std::fprintf(stderr, "cudaMalloc failed\n");
    return 2;
  }
  cudaMemcpy(d_in, in.data(), sizeof(int) * n, cudaMemcpyHostToDevice);
  bool ok = true;
  struct Kernel {
    void (*fn)(const int*, int*);
    const char* name;
  } kernels[] = {{reduce_interleaved, "interleaved"},
                 {reduce_modulo, "modulo"},
                 {reduce_sequential, "sequential"}};
  for (const Kernel& k : kernels) {
    for (int r = 0; r < repeat; ++r) k.fn<<<kBlocks, kBlock>>>(d_in, d_out);
    cudaMemcpy(out.data(), d_out, sizeof(int) * kBlocks, cudaMemcpyDeviceToHost);
    for (int b = 0; b < kBlocks; ++b)
      if (out[b] != expected[b]) {
        std::fprintf(stderr, "%s: wrong sum in block %d\n", k.name, b);
        ok = false;
        break;
      }
  }
  if (cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess) {
    std::fprintf(stderr, "CUDA error: %s\n", cudaGetErrorString(e));
    return 2;
  }
  cudaFree(d_in);
  cudaFree(d_out);
  std::printf("reductions %s\n", ok ? "correct" : "WRONG");
  return ok ? 0 : 1;
}
