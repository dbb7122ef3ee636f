// warplens no-toolkit mode: clang's __clang_cuda_intrinsics.h includes this
// CUDA header for sm_70+; the intrinsics it defines are not needed to parse.
#pragma once
