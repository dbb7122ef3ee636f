// warplens: force-included into every parse (with and without a toolkit).
//
// nvcc's crt/common_functions.h pulls <assert.h> and <time.h> into every .cu
// file, so CUDA code routinely calls assert() or clock() without including
// them. Clang's CUDA wrapper skips that header, which turns such code into
// "use of undeclared identifier 'assert'" errors nvcc never reports.
#pragma once
#include <assert.h>
#include <time.h>
// And <math.h> (crt/math_functions.h includes it, with <cmath>, on the host
// side of every .cu file): host code calls isfinite(), isnan(), M_PI with
// no include of its own (llm.c's common.h: `if (!isfinite(ref[i]))` in a
// host template); under Clang only the device overloads are declared, so
// that is "no matching function for call to 'isfinite'".
#if defined(__cplusplus)
#include <math.h>
#endif

// Surface object functions (surf2Dread, surf2Dwrite, ...): nvcc's headers
// declare them, Clang's CUDA wrapper does not. Only with the toolkit's
// surface types (mode A); see surface_functions.h.
#if defined(__CUDA__) && defined(__SURFACE_TYPES_H__)
#include "surface_functions.h"
#endif

// Host-side min/max. nvcc's host pass sees the CUDA headers' min/max as
// __host__ __device__ (crt/math_functions.hpp: `int min(int, int)` and the
// mixed signed/unsigned, long and float/double overloads), so host code such
// as main() calls them freely. Clang's CUDA wrapper makes those headers
// device-only, which turns every host call into "no matching function for
// call to 'max'". Host declarations with nvcc's signatures restore its
// overload set (a __host__ and a __device__ function may share a signature).
#if defined(__CUDA__) && defined(__cplusplus)
#define WARPLENS_HOST_MINMAX(R, A, B) \
  __host__ R min(A, B);               \
  __host__ R max(A, B);
WARPLENS_HOST_MINMAX(int, int, int)
WARPLENS_HOST_MINMAX(unsigned int, unsigned int, unsigned int)
WARPLENS_HOST_MINMAX(unsigned int, int, unsigned int)
WARPLENS_HOST_MINMAX(unsigned int, unsigned int, int)
WARPLENS_HOST_MINMAX(long, long, long)
WARPLENS_HOST_MINMAX(unsigned long, unsigned long, unsigned long)
WARPLENS_HOST_MINMAX(unsigned long, long, unsigned long)
WARPLENS_HOST_MINMAX(unsigned long, unsigned long, long)
WARPLENS_HOST_MINMAX(long long, long long, long long)
WARPLENS_HOST_MINMAX(unsigned long long, unsigned long long, unsigned long long)
WARPLENS_HOST_MINMAX(unsigned long long, long long, unsigned long long)
WARPLENS_HOST_MINMAX(unsigned long long, unsigned long long, long long)
WARPLENS_HOST_MINMAX(float, float, float)
WARPLENS_HOST_MINMAX(double, double, double)
WARPLENS_HOST_MINMAX(double, float, double)
WARPLENS_HOST_MINMAX(double, double, float)
#undef WARPLENS_HOST_MINMAX
__host__ unsigned int umin(unsigned int, unsigned int);
__host__ unsigned int umax(unsigned int, unsigned int);
__host__ long long llmin(long long, long long);
__host__ long long llmax(long long, long long);
__host__ unsigned long long ullmin(unsigned long long, unsigned long long);
__host__ unsigned long long ullmax(unsigned long long, unsigned long long);
#endif

// Cache-hint loads and stores (__ldcg, __ldca, __ldcs, __ldlu, __ldcv;
// __stwb, __stcg, __stcs, __stwt): nvcc declares them for every .cu file
// (sm_32_intrinsics.h, CUDA >= 11), Clang 19's CUDA wrapper leaves that
// header out on purpose (it defines only __ldg, with builtins), so code
// using them (llm.c's load128cs/store128cs, streaming kernels) is "no
// matching function for call to '__ldcs'" and not analysed at all. For the
// parse they are plain loads and stores, which is also what the access
// analyses should see: the hint changes caching, not addresses. Device
// side only, nvcc's types. (Clang's __clang_cuda_intrinsics.h defines
// __SM_32_INTRINSICS_H__ itself to keep the toolkit header out, so that
// guard cannot tell; the version check is what keeps these from colliding
// with a Clang that adds its own: re-check on moving past Clang 19.)
// Only with the toolkit's vector types (mode A): the no-toolkit prelude has
// no int4.
#if defined(__CUDA__) && defined(__clang__) && defined(__cplusplus) && __clang_major__ <= 19 && \
    defined(__VECTOR_TYPES_H__) && !defined(WARPLENS_NO_CACHE_HINT_SHIMS)
#define WARPLENS_CACHE_HINTS(T)                                                   \
  static __device__ __inline__ T __ldcg(const T* p) { return *p; }                \
  static __device__ __inline__ T __ldca(const T* p) { return *p; }                \
  static __device__ __inline__ T __ldcs(const T* p) { return *p; }                \
  static __device__ __inline__ T __ldlu(const T* p) { return *p; }                \
  static __device__ __inline__ T __ldcv(const T* p) { return *p; }                \
  static __device__ __inline__ void __stwb(T* p, T v) { *p = v; }                 \
  static __device__ __inline__ void __stcg(T* p, T v) { *p = v; }                 \
  static __device__ __inline__ void __stcs(T* p, T v) { *p = v; }                 \
  static __device__ __inline__ void __stwt(T* p, T v) { *p = v; }
WARPLENS_CACHE_HINTS(char)
WARPLENS_CACHE_HINTS(signed char)
WARPLENS_CACHE_HINTS(unsigned char)
WARPLENS_CACHE_HINTS(short)
WARPLENS_CACHE_HINTS(unsigned short)
WARPLENS_CACHE_HINTS(int)
WARPLENS_CACHE_HINTS(unsigned int)
WARPLENS_CACHE_HINTS(long)
WARPLENS_CACHE_HINTS(unsigned long)
WARPLENS_CACHE_HINTS(long long)
WARPLENS_CACHE_HINTS(unsigned long long)
WARPLENS_CACHE_HINTS(float)
WARPLENS_CACHE_HINTS(double)
WARPLENS_CACHE_HINTS(char2)
WARPLENS_CACHE_HINTS(char4)
WARPLENS_CACHE_HINTS(uchar2)
WARPLENS_CACHE_HINTS(uchar4)
WARPLENS_CACHE_HINTS(short2)
WARPLENS_CACHE_HINTS(short4)
WARPLENS_CACHE_HINTS(ushort2)
WARPLENS_CACHE_HINTS(ushort4)
WARPLENS_CACHE_HINTS(int2)
WARPLENS_CACHE_HINTS(int4)
WARPLENS_CACHE_HINTS(uint2)
WARPLENS_CACHE_HINTS(uint4)
WARPLENS_CACHE_HINTS(longlong2)
WARPLENS_CACHE_HINTS(ulonglong2)
WARPLENS_CACHE_HINTS(float2)
WARPLENS_CACHE_HINTS(float4)
WARPLENS_CACHE_HINTS(double2)
#undef WARPLENS_CACHE_HINTS
#endif
