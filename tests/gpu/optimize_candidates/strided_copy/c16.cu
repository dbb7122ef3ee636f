// warplens candidate c16 for kernel `scale_copy_chunked` (policy builtin)
// plan: interleave-chunks() + unroll(factor=4)
// interleave-chunks: thread-per-chunk loop: lanes access `out[t * CHUNK + k]` CHUNK elements apart; interleaving makes each step coalesced; unroll: 1 innermost loop(s) without #pragma unroll
// note: interleave-chunks: element k*T + t replaces t*K + k: the same T*K elements, each processed once
// note: interleave-chunks: the loop body is element-wise (no state carried between elements, t and k only in subscripts)
// note: unroll: unrolling keeps every iteration (the compiler handles remainders)
// Chunked scale-copy: each thread handles a contiguous chunk of CHUNK
// elements. That looks cache-friendly on a CPU, but on a GPU the 32 lanes of
// a warp touch addresses CHUNK * 4 bytes apart at every step of the loop, so
// each warp request spans 32 sectors instead of 4.
#include "harness.cuh"

constexpr int CHUNK = 16;

__global__ void scale_copy_chunked(const float* in, float* out, float scale, int chunks) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < chunks) {
    #pragma unroll 4
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
  example::Run run(argc, argv, "strided_copy");
  const int full_n = 64 << 20;
  const int odd_chunks[] = {1001, 4099, 33, 257};
  const float scale = 1.7f;
  for (int set = 0; set < run.sets(); ++set) {
    const int n = set == 0 ? full_n : odd_chunks[(set - 1) % 4] * CHUNK;
    float* in = example::device_alloc<float>(n);
    float* out = example::device_alloc<float>(n);
    std::vector<float> h_in = example::fill_uniform(in, n, run.seed(set));
    example::poison(out, n * sizeof(float));
    scale_copy(in, out, scale, n);
    run.sync("scale_copy");
    std::vector<float> got = example::to_host(out, n), want(n);
    for (int i = 0; i < n; ++i) want[i] = h_in[i] * scale;
    run.check(set, "out", example::compare(got, want, 1e-6, 0.0));
    run.check(set, "in (must be unchanged)", example::compare(example::to_host(in, n), h_in, 0.0, 0.0));
    WL_CHECK(cudaFree(in));
    WL_CHECK(cudaFree(out));
  }
  if (run.timing()) {
    float* in = example::device_alloc<float>(full_n);
    float* out = example::device_alloc<float>(full_n);
    example::fill_uniform(in, full_n, run.seed(0));
    run.time([&] { scale_copy(in, out, scale, full_n); });
    WL_CHECK(cudaFree(in));
    WL_CHECK(cudaFree(out));
  }
  return run.finish(2.0 * full_n * sizeof(float), 1.0 * full_n);
}
