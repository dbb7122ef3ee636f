// A copy whose load is strided by STRIDE floats, instantiated for 1, 2 and
// 8, for the profiler's GPU tests and fixtures. One warp's 32 lanes read
// 4-byte words STRIDE words apart, so a request touches 4 x STRIDE sectors
// (capped at 32) where 4 would do: 4, 8 and 32 sectors per request.
// The store is coalesced in all three.
//
// Usage: profiler_strided_copy [REPEAT]; exit code 0 when the copies are right.
#include <cstdio>
#include <cstdlib>
#include <vector>

constexpr int kElements = 1 << 22;  // copied elements per launch

template <int STRIDE>
__global__ void copy_strided(float* out, const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[(long long)i * STRIDE];  // LINE strided-copy
}

template <int STRIDE>
static bool run(const float* d_in, float* d_out, std::vector<float>& out,
                const std::vector<float>& in, int repeat) {
  for (int r = 0; r < repeat; ++r)
    copy_strided<STRIDE><<<kElements / 256, 256>>>(d_out, d_in, kElements);
  cudaMemcpy(out.data(), d_out, sizeof(float) * kElements, cudaMemcpyDeviceToHost);
  for (int i = 0; i < kElements; ++i)
    if (out[i] != in[(long long)i * STRIDE]) {
      std::fprintf(stderr, "stride %d: wrong value at %d\n", STRIDE, i);
      return false;
    }
  return true;
}

int main(int argc, char** argv) {
  const int repeat = argc > 1 ? std::atoi(argv[1]) : 1;
  const long long in_elements = (long long)kElements * 8;
  std::vector<float> in(in_elements), out(kElements);
  for (long long i = 0; i < in_elements; ++i) in[i] = float(i % 4093);
  float *d_in = nullptr, *d_out = nullptr;
  if (cudaMalloc(&d_in, sizeof(float) * in_elements) != cudaSuccess ||
      cudaMalloc(&d_out, sizeof(float) * kElements) != cudaSuccess) {
    std::fprintf(stderr, "cudaMalloc failed\n");
    return 2;
  }
  cudaMemcpy(d_in, in.data(), sizeof(float) * in_elements, cudaMemcpyHostToDevice);
  bool ok = run<1>(d_in, d_out, out, in, repeat);
  ok = run<2>(d_in, d_out, out, in, repeat) && ok;
  ok = run<8>(d_in, d_out, out, in, repeat) && ok;
  if (cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess) {
    std::fprintf(stderr, "CUDA error: %s\n", cudaGetErrorString(e));
    return 2;
  }
  cudaFree(d_in);
  cudaFree(d_out);
  std::printf("strided copies %s\n", ok ? "correct" : "WRONG");
  return ok ? 0 : 1;
}
