// A 256-bin histogram of bytes with one global atomicAdd per element. Image
// and text data crowd into few bins: here half of the bytes fall into 8 bins,
// so thousands of threads queue on the same counters.
#include "harness.cuh"

__global__ void histogram(const unsigned char* data, unsigned int* bins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&bins[data[i]], 1u);
}

void hist(const unsigned char* d, unsigned int* bins, int n) {
  histogram<<<(n + 255) / 256, 256>>>(d, bins, n);
}

__global__ void fill_bytes(unsigned char* p, int n, std::uint64_t seed) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    const std::uint64_t h = example::mix64(seed * 0x100000001B3ull ^ static_cast<std::uint64_t>(i));
    p[i] = (h & 1) ? static_cast<unsigned char>(96 + ((h >> 8) & 7)) : static_cast<unsigned char>(h >> 16);
  }
}

int main(int argc, char** argv) {
  example::Run run(argc, argv, "histogram256");
  const int full_n = 64 << 20;
  const int odd_n[] = {1000003, 257, 31, 65537};
  for (int set = 0; set < run.sets(); ++set) {
    const int n = set == 0 ? full_n : odd_n[(set - 1) % 4];
    unsigned char* d = example::device_alloc<unsigned char>(n);
    unsigned int* bins = example::device_alloc<unsigned int>(256);
    fill_bytes<<<1024, 256>>>(d, n, run.seed(set));
    run.sync("fill");
    std::vector<unsigned char> hd = example::to_host(d, n);
    WL_CHECK(cudaMemset(bins, 0, 256 * sizeof(unsigned int)));
    hist(d, bins, n);
    run.sync("histogram");
    std::vector<unsigned int> got = example::to_host(bins, 256);
    std::vector<unsigned int> want(256, 0);
    for (int i = 0; i < n; ++i) ++want[hd[i]];
    run.check(set, "bins", example::compare(got, want, 0.0, 0.0));
    run.check(set, "data (must be unchanged)", example::compare(example::to_host(d, n), hd, 0.0, 0.0));
    WL_CHECK(cudaFree(d));
    WL_CHECK(cudaFree(bins));
  }
  if (run.timing()) {
    unsigned char* d = example::device_alloc<unsigned char>(full_n);
    unsigned int* bins = example::device_alloc<unsigned int>(256);
    fill_bytes<<<1024, 256>>>(d, full_n, run.seed(0));
    run.sync("fill");
    run.time([&] {
      WL_CHECK(cudaMemsetAsync(bins, 0, 256 * sizeof(unsigned int)));
      hist(d, bins, full_n);
    });
    WL_CHECK(cudaFree(d));
    WL_CHECK(cudaFree(bins));
  }
  return run.finish(static_cast<double>(full_n), static_cast<double>(full_n));
}
