// warplens no-toolkit prelude: what a CUDA translation unit needs from the
// CUDA toolkit to *parse*, for machines without one ("degraded mode").
//
// Force-included (-include) with `-nocudainc`, it plays the part of clang's
// __clang_cuda_runtime_wrapper.h + cuda_runtime.h: execution-space macros,
// the builtin index variables, vector types and dim3, device intrinsics and
// math (taken from clang's own CUDA headers, which need no toolkit), atomics,
// a subset of the runtime API, and the kernel-launch hook `<<<...>>>` needs.
// Declarations only where a definition is not needed: nothing is compiled.
//
// Not provided: any other CUDA library header (cuda_fp16.h, cub,
// cooperative_groups, ...). Code that needs them should be analysed with a
// toolkit installed; warplens reports the degraded mode as a finding.
#ifndef WARPLENS_CUDA_PRELUDE_H
#define WARPLENS_CUDA_PRELUDE_H

#if !defined(__CUDA__) || !defined(__clang__)
#error "warplens's CUDA prelude is only for clang CUDA parses"
#endif

#define WARPLENS_NO_TOOLKIT_PRELUDE 1
#ifndef CUDA_VERSION
#define CUDA_VERSION 12050
#endif
#ifndef CUDART_VERSION
#define CUDART_VERSION 12050
#endif
#define __CUDACC_VER_MAJOR__ 12
#define __CUDACC_VER_MINOR__ 5
#define __CUDACC_VER_BUILD__ 0

// ---- execution spaces and attributes (as in CUDA's host_defines.h) --------
#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __grid_constant__ __attribute__((grid_constant))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __align__(n) __attribute__((aligned(n)))
#define __builtin_align__(n) __attribute__((aligned(n)))
#define __device_builtin__
#define __cudart_builtin__
#define __CUDA_ALIGN__(n) __attribute__((aligned(n)))
// __noinline__ is a keyword in clang's CUDA mode; redefining it would break
// libstdc++'s __attribute__((__noinline__)).

// ---- host C/C++ library first, with device math declared before <cmath> ----
#include <__clang_cuda_math_forward_declares.h>
#define __CUDACC__
#include <cmath>
#include <cstdlib>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>
#include <limits.h>
#include <new>

// ---- builtin index variables: clang's own (threadIdx, blockIdx, ...) ------
#include <__clang_cuda_builtin_vars.h>

// ---- vector types (sizes and alignments as in CUDA's vector_types.h) ------
#define WARPLENS_VEC1(T, N, A)                                                                    \
  struct __attribute__((aligned(A))) N##1 { T x; };                                               \
  static __host__ __device__ __forceinline__ N##1 make_##N##1(T x) { N##1 r; r.x = x; return r; }
#define WARPLENS_VEC2(T, N, A)                                                                    \
  struct __attribute__((aligned(A))) N##2 { T x, y; };                                            \
  static __host__ __device__ __forceinline__ N##2 make_##N##2(T x, T y) {                         \
    N##2 r; r.x = x; r.y = y; return r;                                                           \
  }
#define WARPLENS_VEC3(T, N)                                                                       \
  struct N##3 { T x, y, z; };                                                                     \
  static __host__ __device__ __forceinline__ N##3 make_##N##3(T x, T y, T z) {                    \
    N##3 r; r.x = x; r.y = y; r.z = z; return r;                                                  \
  }
#define WARPLENS_VEC4(T, N, A)                                                                    \
  struct __attribute__((aligned(A))) N##4 { T x, y, z, w; };                                      \
  static __host__ __device__ __forceinline__ N##4 make_##N##4(T x, T y, T z, T w) {               \
    N##4 r; r.x = x; r.y = y; r.z = z; r.w = w; return r;                                         \
  }
#define WARPLENS_VECS(T, N, A1, A2, A4) \
  WARPLENS_VEC1(T, N, A1) WARPLENS_VEC2(T, N, A2) WARPLENS_VEC3(T, N) WARPLENS_VEC4(T, N, A4)

WARPLENS_VECS(signed char, char, 1, 2, 4)
WARPLENS_VECS(unsigned char, uchar, 1, 2, 4)
WARPLENS_VECS(short, short, 2, 4, 8)
WARPLENS_VECS(unsigned short, ushort, 2, 4, 8)
WARPLENS_VECS(int, int, 4, 8, 16)
WARPLENS_VECS(unsigned int, uint, 4, 8, 16)
WARPLENS_VECS(long, long, sizeof(long), 2 * sizeof(long), 16)
WARPLENS_VECS(unsigned long, ulong, sizeof(long), 2 * sizeof(long), 16)
WARPLENS_VECS(long long, longlong, 8, 16, 16)
WARPLENS_VECS(unsigned long long, ulonglong, 8, 16, 16)
WARPLENS_VECS(float, float, 4, 8, 16)
WARPLENS_VECS(double, double, 8, 16, 16)
#undef WARPLENS_VEC1
#undef WARPLENS_VEC2
#undef WARPLENS_VEC3
#undef WARPLENS_VEC4
#undef WARPLENS_VECS

struct dim3 {
  unsigned int x, y, z;
  __host__ __device__ constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
      : x(vx), y(vy), z(vz) {}
  __host__ __device__ constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  __host__ __device__ constexpr operator uint3() const { return uint3{x, y, z}; }
};

__device__ inline __cuda_builtin_threadIdx_t::operator dim3() const { return dim3(x, y, z); }
__device__ inline __cuda_builtin_threadIdx_t::operator uint3() const { return uint3{x, y, z}; }
__device__ inline __cuda_builtin_blockIdx_t::operator dim3() const { return dim3(x, y, z); }
__device__ inline __cuda_builtin_blockIdx_t::operator uint3() const { return uint3{x, y, z}; }
__device__ inline __cuda_builtin_blockDim_t::operator dim3() const { return dim3(x, y, z); }
__device__ inline __cuda_builtin_blockDim_t::operator uint3() const { return uint3{x, y, z}; }
__device__ inline __cuda_builtin_gridDim_t::operator dim3() const { return dim3(x, y, z); }
__device__ inline __cuda_builtin_gridDim_t::operator uint3() const { return uint3{x, y, z}; }

// ---- device intrinsics and math: clang's own CUDA headers ------------------
// (plus the few sm_20 intrinsics they call that CUDA's headers would declare)
typedef uint32_t cuuint32_t;
typedef uint64_t cuuint64_t;
extern "C" {
__device__ unsigned int __isGlobal(const void* ptr);
__device__ unsigned int __isShared(const void* ptr);
__device__ unsigned int __isConstant(const void* ptr);
__device__ unsigned int __isLocal(const void* ptr);
__device__ size_t __cvta_generic_to_global(const void* ptr);
__device__ size_t __cvta_generic_to_shared(const void* ptr);
__device__ size_t __cvta_generic_to_constant(const void* ptr);
__device__ size_t __cvta_generic_to_local(const void* ptr);
__device__ void* __cvta_global_to_generic(size_t rawbits);
__device__ void* __cvta_shared_to_generic(size_t rawbits);
}
#define __CUDA_LIBDEVICE__
#include <__clang_cuda_libdevice_declares.h>
#include <__clang_cuda_device_functions.h>
#include <__clang_cuda_math.h>
#undef __CUDA_LIBDEVICE__
#include <__clang_cuda_cmath.h>
#include <__clang_cuda_intrinsics.h>

// Device libc, the way clang's runtime wrapper declares it (after <stdio.h>,
// or the host printf would clash with a host+device one).
extern "C" {
__device__ int vprintf(const char*, const char*);
__device__ void free(void*) __attribute((nothrow));
__device__ void* malloc(size_t) __attribute((nothrow)) __attribute__((malloc));
__device__ void __assertfail(const char* __message, const char* __file, unsigned __line,
                             const char* __function, size_t __charSize);
__device__ static inline void __assert_fail(const char* __message, const char* __file,
                                            unsigned __line, const char* __function) {
  __assertfail(__message, __file, __line, __function, sizeof(char));
}
__device__ int printf(const char*, ...);
}

// ---- atomics (declarations: a parse needs no bodies) -----------------------
#define WARPLENS_ATOMIC2(name, T) __device__ T name(T* address, T val);
#define WARPLENS_ATOMIC_INTS(name)                                          \
  WARPLENS_ATOMIC2(name, int) WARPLENS_ATOMIC2(name, unsigned int)          \
  WARPLENS_ATOMIC2(name, unsigned long long int)
WARPLENS_ATOMIC_INTS(atomicAdd)
WARPLENS_ATOMIC2(atomicAdd, float)
WARPLENS_ATOMIC2(atomicAdd, double)
WARPLENS_ATOMIC2(atomicAdd, float2)
WARPLENS_ATOMIC2(atomicAdd, float4)
WARPLENS_ATOMIC2(atomicSub, int)
WARPLENS_ATOMIC2(atomicSub, unsigned int)
WARPLENS_ATOMIC_INTS(atomicExch)
WARPLENS_ATOMIC2(atomicExch, float)
WARPLENS_ATOMIC_INTS(atomicMin)
WARPLENS_ATOMIC2(atomicMin, long long int)
WARPLENS_ATOMIC_INTS(atomicMax)
WARPLENS_ATOMIC2(atomicMax, long long int)
WARPLENS_ATOMIC_INTS(atomicAnd)
WARPLENS_ATOMIC_INTS(atomicOr)
WARPLENS_ATOMIC_INTS(atomicXor)
WARPLENS_ATOMIC2(atomicInc, unsigned int)
WARPLENS_ATOMIC2(atomicDec, unsigned int)
__device__ int atomicCAS(int* address, int compare, int val);
__device__ unsigned int atomicCAS(unsigned int* address, unsigned int compare, unsigned int val);
__device__ unsigned long long int atomicCAS(unsigned long long int* address,
                                            unsigned long long int compare,
                                            unsigned long long int val);
__device__ unsigned short int atomicCAS(unsigned short int* address, unsigned short int compare,
                                        unsigned short int val);
#undef WARPLENS_ATOMIC_INTS
#undef WARPLENS_ATOMIC2

// ---- runtime API (host side), enough for typical main() functions ----------
typedef enum cudaError {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInitializationError = 3,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorInvalidDevice = 101,
  cudaErrorNoDevice = 100,
  cudaErrorNotReady = 600,
  cudaErrorUnknown = 999
} cudaError_t;
typedef struct CUstream_st* cudaStream_t;
typedef struct CUevent_st* cudaEvent_t;
typedef enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4
} cudaMemcpyKind;
enum cudaFuncAttribute {
  cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
  cudaFuncAttributePreferredSharedMemoryCarveout = 9
};
struct cudaDeviceProp {
  char name[256];
  size_t totalGlobalMem, sharedMemPerBlock;
  int regsPerBlock, warpSize;
  size_t memPitch;
  int maxThreadsPerBlock, maxThreadsDim[3], maxGridSize[3], clockRate;
  size_t totalConstMem;
  int major, minor, multiProcessorCount, maxThreadsPerMultiProcessor;
  size_t sharedMemPerMultiprocessor, sharedMemPerBlockOptin;
  int regsPerMultiprocessor, memoryBusWidth, memoryClockRate, l2CacheSize;
};
#define cudaStreamNonBlocking 0x01
#define cudaEventDefault 0x00
#define cudaMemAttachGlobal 0x01
#define cudaHostAllocDefault 0x00

extern "C" {
__host__ __device__ cudaError_t cudaGetLastError(void);
__host__ __device__ cudaError_t cudaPeekAtLastError(void);
__host__ __device__ const char* cudaGetErrorString(cudaError_t error);
__host__ const char* cudaGetErrorName(cudaError_t error);
__host__ __device__ cudaError_t cudaMalloc(void** devPtr, size_t size);
__host__ __device__ cudaError_t cudaFree(void* devPtr);
__host__ cudaError_t cudaMallocManaged(void** devPtr, size_t size, unsigned int flags = 1);
__host__ cudaError_t cudaMallocHost(void** ptr, size_t size);
__host__ cudaError_t cudaHostAlloc(void** ptr, size_t size, unsigned int flags);
__host__ cudaError_t cudaFreeHost(void* ptr);
__host__ cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, cudaMemcpyKind kind);
__host__ __device__ cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count,
                                                cudaMemcpyKind kind, cudaStream_t stream = 0);
__host__ cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch,
                                  size_t width, size_t height, cudaMemcpyKind kind);
__host__ cudaError_t cudaMemset(void* devPtr, int value, size_t count);
__host__ __device__ cudaError_t cudaMemsetAsync(void* devPtr, int value, size_t count,
                                                cudaStream_t stream = 0);
__host__ cudaError_t cudaMemGetInfo(size_t* free, size_t* total);
__host__ __device__ cudaError_t cudaDeviceSynchronize(void);
__host__ cudaError_t cudaDeviceReset(void);
__host__ cudaError_t cudaSetDevice(int device);
__host__ __device__ cudaError_t cudaGetDevice(int* device);
__host__ cudaError_t cudaGetDeviceCount(int* count);
__host__ cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device);
__host__ __device__ cudaError_t cudaDeviceGetAttribute(int* value, int attr, int device);
__host__ cudaError_t cudaStreamCreate(cudaStream_t* stream);
__host__ __device__ cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags);
__host__ __device__ cudaError_t cudaStreamDestroy(cudaStream_t stream);
__host__ cudaError_t cudaStreamSynchronize(cudaStream_t stream);
__host__ cudaError_t cudaEventCreate(cudaEvent_t* event);
__host__ __device__ cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags);
__host__ __device__ cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream = 0);
__host__ cudaError_t cudaEventSynchronize(cudaEvent_t event);
__host__ cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end);
__host__ __device__ cudaError_t cudaEventDestroy(cudaEvent_t event);
__host__ cudaError_t cudaFuncSetAttribute(const void* func, enum cudaFuncAttribute attr, int value);
__host__ cudaError_t cudaMemcpyToSymbol(const void* symbol, const void* src, size_t count,
                                        size_t offset = 0,
                                        cudaMemcpyKind kind = cudaMemcpyHostToDevice);
__host__ cudaError_t cudaMemcpyFromSymbol(void* dst, const void* symbol, size_t count,
                                          size_t offset = 0,
                                          cudaMemcpyKind kind = cudaMemcpyDeviceToHost);
__host__ cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks, const void* func,
                                                                   int blockSize,
                                                                   size_t dynamicSMemSize);

// The hooks `k<<<g, b, s, t>>>(...)` is rewritten to. Clang picks
// __cudaPushCallConfiguration when it knows the SDK version (>= 9.2) and
// cudaConfigureCall otherwise; without a toolkit the driver sets no version,
// so both are declared.
__host__ __device__ unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim,
                                                         size_t sharedMem = 0,
                                                         cudaStream_t stream = 0);
__host__ __device__ cudaError_t cudaConfigureCall(dim3 gridDim, dim3 blockDim,
                                                  size_t sharedMem = 0, cudaStream_t stream = 0);
}

template <class T>
static __host__ __inline__ cudaError_t cudaMalloc(T** devPtr, size_t size) {
  return ::cudaMalloc((void**)(void*)devPtr, size);
}
template <class T>
static __host__ __inline__ cudaError_t cudaMallocManaged(T** devPtr, size_t size,
                                                         unsigned int flags = 1) {
  return ::cudaMallocManaged((void**)(void*)devPtr, size, flags);
}
template <class T>
static __host__ __inline__ cudaError_t cudaMallocHost(T** ptr, size_t size) {
  return ::cudaMallocHost((void**)(void*)ptr, size);
}
template <class T>
static __host__ __inline__ cudaError_t cudaMemcpyToSymbol(const T& symbol, const void* src,
                                                          size_t count, size_t offset = 0,
                                                          cudaMemcpyKind kind = cudaMemcpyHostToDevice) {
  return ::cudaMemcpyToSymbol((const void*)&symbol, src, count, offset, kind);
}
template <class T>
static __host__ __inline__ cudaError_t cudaFuncSetAttribute(T* entry, enum cudaFuncAttribute attr,
                                                            int value) {
  return ::cudaFuncSetAttribute((const void*)entry, attr, value);
}
template <class T>
static __host__ __inline__ cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(
    int* numBlocks, T func, int blockSize, size_t dynamicSMemSize) {
  return ::cudaOccupancyMaxActiveBlocksPerMultiprocessor(numBlocks, (const void*)func, blockSize,
                                                         dynamicSMemSize);
}

#endif  // WARPLENS_CUDA_PRELUDE_H
