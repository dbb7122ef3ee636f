// Measures, on a real GPU, what warplens computes without one: each test
// kernel's registers and static shared memory (cudaFuncGetAttributes) and
// the CUDA runtime's occupancy (cudaOccupancyMaxActiveBlocksPerMultiprocessor)
// for a grid of block sizes and dynamic shared memory sizes, plus the
// device's limits. Output format (tests/unit/analysis/occupancy_measured.h):
//   device <major> <minor> <sms> <threads/SM> <blocks/SM> <regs/SM> <regs/block> <smem/SM> <smem/block optin> <reserved> <name>
//   kernel <id> <regs> <static smem> <local bytes> <max threads> <demangled prefix>
//   occ <id> <block threads> <dynamic smem> <blocks per SM, -1 = error>
// Built by tests/gpu/occupancy/run.sh with nvcc -arch=native -Xptxas -v.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>

#include "../../fixtures/ptxas/kernels.cu"

namespace {

#define CHECK_CUDA(call)                                                                   \
  do {                                                                                     \
    cudaError_t e = (call);                                                                \
    if (e != cudaSuccess) {                                                                \
      std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e));                      \
      return 1;                                                                            \
    }                                                                                      \
  } while (0)

struct Kernel {
  const char* id;
  const char* prefix;  // start of the demangled name, to find ptxas' record
  const void* fn;
};

int probe(const Kernel& k, const cudaDeviceProp& prop) {
  cudaFuncAttributes a;
  CHECK_CUDA(cudaFuncGetAttributes(&a, k.fn));
  std::printf("kernel %s %d %zu %zu %d %s\n", k.id, a.numRegs, a.sharedSizeBytes, a.localSizeBytes,
              a.maxThreadsPerBlock, k.prefix);
  // Allow dynamic shared memory up to the opt-in limit, as a program
  // launching with that much must (warplens assumes it did).
  int optin_dynamic = static_cast<int>(prop.sharedMemPerBlockOptin - a.sharedSizeBytes);
  CHECK_CUDA(cudaFuncSetAttribute(k.fn, cudaFuncAttributeMaxDynamicSharedMemorySize, optin_dynamic));
  const int blocks[] = {32, 64, 96, 128, 192, 256, 320, 384, 512, 640, 768, 1024};
  const size_t smem[] = {0, 4096, 20000, 40000, 100000};
  for (int b : blocks)
    for (size_t s : smem) {
      if (s + a.sharedSizeBytes > prop.sharedMemPerBlockOptin) continue;
      int n = 0;
      cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, k.fn, b, s);
      if (e != cudaSuccess) {
        cudaGetLastError();
        n = -1;
      }
      std::printf("occ %s %d %zu %d\n", k.id, b, s, n);
    }
  return 0;
}

}  // namespace

int main() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::fprintf(stderr, "no CUDA device\n");
    return 77;
  }
  cudaDeviceProp prop;
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  int reserved = 0, blocks_per_sm = 0;
  CHECK_CUDA(cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, 0));
  CHECK_CUDA(cudaDeviceGetAttribute(&blocks_per_sm, cudaDevAttrMaxBlocksPerMultiprocessor, 0));
  std::printf("# warplens occupancy probe 1\n");
  std::printf("device %d %d %d %d %d %d %d %zu %zu %d %s\n", prop.major, prop.minor, prop.multiProcessorCount,
              prop.maxThreadsPerMultiProcessor, blocks_per_sm, prop.regsPerMultiprocessor, prop.regsPerBlock,
              prop.sharedMemPerMultiprocessor, prop.sharedMemPerBlockOptin, reserved, prop.name);
  const Kernel kernels[] = {
      {"transpose", "transpose(", reinterpret_cast<const void*>(&transpose)},
      {"scale_f256", "void ns::scale<float, 256>(", reinterpret_cast<const void*>(&ns::scale<float, 256>)},
      {"scale_d128", "void ns::scale<double, 128>(", reinterpret_cast<const void*>(&ns::scale<double, 128>)},
      {"heavy", "heavy(", reinterpret_cast<const void*>(&heavy)},
      {"uses_const", "uses_const(", reinterpret_cast<const void*>(&uses_const)},
      {"c_kernel", "c_kernel", reinterpret_cast<const void*>(&c_kernel)},
      {"apply", "void apply<AddOne>(", reinterpret_cast<const void*>(&apply<AddOne>)},
      {"big_smem", "big_smem(", reinterpret_cast<const void*>(&big_smem)},
      {"accumulate", "accumulate(", reinterpret_cast<const void*>(&accumulate)},
  };
  for (const auto& k : kernels)
    if (probe(k, prop) != 0) return 1;
  return 0;
}
