// Device memory bandwidth as the optimize benchmark's roofline: a large
// device-to-device cudaMemcpy, counting bytes read plus bytes written, median
// of 20 timed copies after warm-up. Prints `bandwidth_gbs <value>` last.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#define CHECK(call)                                                                        \
  do {                                                                                     \
    cudaError_t e = (call);                                                                \
    if (e != cudaSuccess) {                                                                \
      std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e));                     \
      return 2;                                                                            \
    }                                                                                      \
  } while (0)

int main() {
  const size_t bytes = size_t(1) << 30;  // 1 GiB each way: far beyond the L2
  void *a = nullptr, *b = nullptr;
  CHECK(cudaMalloc(&a, bytes));
  CHECK(cudaMalloc(&b, bytes));
  CHECK(cudaMemset(a, 1, bytes));
  CHECK(cudaMemset(b, 2, bytes));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  for (int i = 0; i < 3; ++i) CHECK(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice));
  std::vector<float> ms;
  for (int i = 0; i < 20; ++i) {
    CHECK(cudaEventRecord(start));
    CHECK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice));
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float t = 0;
    CHECK(cudaEventElapsedTime(&t, start, stop));
    ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  const double median = ms[ms.size() / 2];
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device %s, %d SMs, L2 %d MB\n", prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20);
  std::printf("copy of %zu MiB: median %.3f ms (min %.3f, max %.3f)\n", bytes >> 20, median, ms.front(), ms.back());
  std::printf("bandwidth_gbs %.1f\n", 2.0 * bytes / (median * 1e-3) / 1e9);
  return 0;
}
