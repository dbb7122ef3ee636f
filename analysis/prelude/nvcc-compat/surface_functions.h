// warplens: surface object functions, for the device parse (included by
// nvcc_compat.h when the CUDA runtime's surface types are there).
//
// nvcc gets surf1Dread ... surfCubemapLayeredwrite from the toolkit's
// surface_indirect_functions.h, whose bodies go through nvcc's
// __nv_tex_surf_handler; Clang's CUDA wrapper does not include that header
// (it has texture objects only), so surface code fails with "use of
// undeclared identifier 'surf2Dread'". Declarations are all a parse needs:
// the same overloads (a pointer result, or the value returned with an
// explicit type) and the same boundary-mode default. The real header is then
// kept out so the two cannot collide.
#pragma once
#ifndef __SURFACE_INDIRECT_FUNCTIONS_H__
#define __SURFACE_INDIRECT_FUNCTIONS_H__

#define WARPLENS_SURF_MODE cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap

template <class T> __device__ void surf1Dread(T* ptr, cudaSurfaceObject_t obj, int x, WARPLENS_SURF_MODE);
template <class T> __device__ T surf1Dread(cudaSurfaceObject_t obj, int x, WARPLENS_SURF_MODE);
template <class T> __device__ void surf2Dread(T* ptr, cudaSurfaceObject_t obj, int x, int y, WARPLENS_SURF_MODE);
template <class T> __device__ T surf2Dread(cudaSurfaceObject_t obj, int x, int y, WARPLENS_SURF_MODE);
template <class T>
__device__ void surf3Dread(T* ptr, cudaSurfaceObject_t obj, int x, int y, int z, WARPLENS_SURF_MODE);
template <class T> __device__ T surf3Dread(cudaSurfaceObject_t obj, int x, int y, int z, WARPLENS_SURF_MODE);
template <class T>
__device__ void surf1DLayeredread(T* ptr, cudaSurfaceObject_t obj, int x, int layer, WARPLENS_SURF_MODE);
template <class T> __device__ T surf1DLayeredread(cudaSurfaceObject_t obj, int x, int layer, WARPLENS_SURF_MODE);
template <class T>
__device__ void surf2DLayeredread(T* ptr, cudaSurfaceObject_t obj, int x, int y, int layer, WARPLENS_SURF_MODE);
template <class T>
__device__ T surf2DLayeredread(cudaSurfaceObject_t obj, int x, int y, int layer, WARPLENS_SURF_MODE);
template <class T>
__device__ void surfCubemapread(T* ptr, cudaSurfaceObject_t obj, int x, int y, int face, WARPLENS_SURF_MODE);
template <class T> __device__ T surfCubemapread(cudaSurfaceObject_t obj, int x, int y, int face, WARPLENS_SURF_MODE);
template <class T>
__device__ void surfCubemapLayeredread(T* ptr, cudaSurfaceObject_t obj, int x, int y, int layerface,
                                       WARPLENS_SURF_MODE);
template <class T>
__device__ T surfCubemapLayeredread(cudaSurfaceObject_t obj, int x, int y, int layerface, WARPLENS_SURF_MODE);

template <class T> __device__ void surf1Dwrite(T val, cudaSurfaceObject_t obj, int x, WARPLENS_SURF_MODE);
template <class T> __device__ void surf2Dwrite(T val, cudaSurfaceObject_t obj, int x, int y, WARPLENS_SURF_MODE);
template <class T>
__device__ void surf3Dwrite(T val, cudaSurfaceObject_t obj, int x, int y, int z, WARPLENS_SURF_MODE);
template <class T>
__device__ void surf1DLayeredwrite(T val, cudaSurfaceObject_t obj, int x, int layer, WARPLENS_SURF_MODE);
template <class T>
__device__ void surf2DLayeredwrite(T val, cudaSurfaceObject_t obj, int x, int y, int layer, WARPLENS_SURF_MODE);
template <class T>
__device__ void surfCubemapwrite(T val, cudaSurfaceObject_t obj, int x, int y, int face, WARPLENS_SURF_MODE);
template <class T>
__device__ void surfCubemapLayeredwrite(T val, cudaSurfaceObject_t obj, int x, int y, int layerface,
                                        WARPLENS_SURF_MODE);

#undef WARPLENS_SURF_MODE
#endif
