// warplens candidate c06 for kernel `scale_copy_chunked` (policy builtin)
// plan: interleave-chunks() + restrict-const() + unroll(factor=8)
// interleave-chunks: thread-per-chunk loop: lanes access `out[t * CHUNK + k]` CHUNK elements apart; interleaving makes each step coalesced; restrict-const: 2 pointer parameter(s) gain const/__restrict__; unroll: 1 innermost loop(s) without #pragma unroll
// note: interleave-chunks: element k*T + t replaces t*K + k: the same T*K elements, each processed once
// note: interleave-chunks: the loop body is element-wise (no state carried between elements, t and k only in subscripts)
// note: restrict-const: every launch in the file passes distinct pointer variables (no aliasing)
// note: restrict-const: const added only to pointers the kernel never writes through
// note: unroll: unrolling keeps every iteration (the compiler handles remainders)
// Chunked scale-copy: each thread copies a contiguous chunk, so a warp's
// lanes are CHUNK floats apart at every step.
// usage: strided_copy [n]
#include <cstdio>
#include <cstdlib>
#include <vector>

constexpr int CHUNK = 16;

__global__ void scale_copy_chunked(const float* __restrict__ in, float* __restrict__ out, float scale, int chunks) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < chunks) {
    #pragma unroll 8
    for (int k = 0; k < CHUNK; ++k) {
      const auto wl_j = k * (chunks) + t;
      out[wl_j + (0 * CHUNK + 0)] = in[wl_j + (0 * CHUNK + 0)] * scale;
    }
  }
}

void scale_copy(const float* in, float* out, float scale, int n) {
  int chunks = n / CHUNK;
  int threads = 256;
  scale_copy_chunked<<<(chunks + threads - 1) / threads, threads>>>(in, out, scale, chunks);
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 64 << 20;
  std::vector<float> h(n);
  for (int i = 0; i < n; ++i) h[i] = static_cast<float>(i % 1024) * 0.25f - 128.0f;
  float *in, *out;
  cudaMalloc(&in, n * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  cudaMemcpy(in, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  scale_copy(in, out, 1.5f, n);
  cudaMemcpy(h.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost);
  double sum = 0;
  for (int i = 0; i < n; ++i) sum += h[i];
  std::printf("scale_copy %d checksum %.6f\n", n, sum);
  cudaFree(in);
  cudaFree(out);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
