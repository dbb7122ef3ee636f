// Verifier GPU case: what capture does with each kind of memory.
//   add_one on managed memory      -> captured (memory "managed")
//   add_one on mapped host memory  -> refused, with the reason
//   scale_span on device memory    -> captured; the pointer sits inside a
//                                     by-value struct (byte 8 of parameter 0)
#include <cuda_runtime.h>

#include <cstdio>

struct Span {
  int n;
  int pad;
  float* data;
};

__global__ void add_one(float* a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] += 1.0f;
}

__global__ void scale_span(Span s, float f) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < s.n) s.data[i] *= f;
}

int main() {
  const int n = 1 << 16;
  float* managed = nullptr;
  if (cudaMallocManaged(&managed, n * sizeof(float)) != cudaSuccess) return 1;
  for (int i = 0; i < n; ++i) managed[i] = 0.5f * static_cast<float>(i % 10);
  add_one<<<(n + 255) / 256, 256>>>(managed, n);
  if (cudaDeviceSynchronize() != cudaSuccess) return 2;

  float* host = nullptr;
  float* host_on_device = nullptr;
  if (cudaHostAlloc(&host, n * sizeof(float), cudaHostAllocMapped) != cudaSuccess) return 3;
  if (cudaHostGetDevicePointer(&host_on_device, host, 0) != cudaSuccess) return 4;
  for (int i = 0; i < n; ++i) host[i] = 1.0f;
  add_one<<<(n + 255) / 256, 256>>>(host_on_device, n);
  if (cudaDeviceSynchronize() != cudaSuccess) return 5;

  float* device = nullptr;
  if (cudaMalloc(&device, n * sizeof(float)) != cudaSuccess) return 6;
  cudaMemcpy(device, managed, n * sizeof(float), cudaMemcpyDefault);
  scale_span<<<(n + 255) / 256, 256>>>(Span{n, 0, device}, 3.0f);
  if (cudaDeviceSynchronize() != cudaSuccess) return 7;
  std::printf("memory_kinds managed[1] = %f, host[1] = %f\n", managed[1], host[1]);
  return 0;
}
