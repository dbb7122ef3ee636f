// warplens: force-included into every parse (with and without a toolkit).
//
// nvcc's crt/common_functions.h pulls <assert.h> and <time.h> into every .cu
// file, so CUDA code routinely calls assert() or clock() without including
// them. Clang's CUDA wrapper skips that header, which turns such code into
// "use of undeclared identifier 'assert'" errors nvcc never reports.
#pragma once
#include <assert.h>
#include <time.h>
