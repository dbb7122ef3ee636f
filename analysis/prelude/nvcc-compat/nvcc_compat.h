// warplens: force-included into every parse (with and without a toolkit).
//
// nvcc's crt/common_functions.h pulls <assert.h> and <time.h> into every .cu
// file, so CUDA code routinely calls assert() or clock() without including
// them. Clang's CUDA wrapper skips that header, which turns such code into
// "use of undeclared identifier 'assert'" errors nvcc never reports.
#pragma once
#include <assert.h>
#include <time.h>

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
