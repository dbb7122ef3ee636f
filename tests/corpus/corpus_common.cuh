// Host helpers shared by the corpus programs: error checking, buffers filled
// with reproducible data, and reading a block size from the command line
// (which makes the block shape unknown to a static analysis, on purpose).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                            \
  do {                                                                              \
    cudaError_t err_ = (call);                                                      \
    if (err_ != cudaSuccess) {                                                      \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      std::exit(1);                                                                 \
    }                                                                               \
  } while (0)

template <typename T>
T* device_buffer(size_t count, int seed = 1) {
  std::vector<T> host(count);
  unsigned state = 2463534242u + unsigned(seed);
  for (size_t i = 0; i < count; ++i) {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    host[i] = T(state % 1000) / T(100);
  }
  T* d = nullptr;
  CUDA_CHECK(cudaMalloc(&d, count * sizeof(T)));
  CUDA_CHECK(cudaMemcpy(d, host.data(), count * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

template <typename T>
T* device_zeros(size_t count) {
  T* d = nullptr;
  CUDA_CHECK(cudaMalloc(&d, count * sizeof(T)));
  CUDA_CHECK(cudaMemset(d, 0, count * sizeof(T)));
  return d;
}

inline int int_arg(int argc, char** argv, int index, int fallback) {
  return argc > index ? std::atoi(argv[index]) : fallback;
}

inline void finish(const char* name) {
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  std::printf("%s: ok\n", name);
}
