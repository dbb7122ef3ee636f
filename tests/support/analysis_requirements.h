// Requirements of tests that use the analysis library's tools (see
// tests/support/requirements.h): include in a test file, then
// `TEST_CASE("..." * needs("nvcc"))`.
//   nvcc                  an nvcc that runs (broken, not missing, when CUDA was
//                         found at build time but nvcc cannot be run)
//   cuda-toolkit          the CUDA toolkit's headers (cuda_runtime.h, cooperative_groups.h)
//   occupancy-calculator  CUDA's cuda_occupancy.h, compiled in
//   no-occupancy-calculator  a build without it (the case tests what it says then)
//   clang-front-end       the Clang front end (a -DWARPLENS_WITH_CLANG=ON build)
#pragma once

#include "analysis/analyzer.h"
#include "analysis/cuda_toolkit.h"
#include "analysis/nvcc_toolchain.h"
#include "analysis/occupancy.h"
#include "tests/support/requirements.h"

namespace warplens::test {

inline Availability nvcc_availability() {
  NvccLookup found = find_nvcc("");
  if (found.toolchain) return met();
#ifdef WARPLENS_HAVE_CUDA_HEADERS
  return broken("CUDA was found at build time but nvcc cannot be run: " + found.error);
#else
  return missing("nvcc not found (" + found.error + ")");
#endif
}

WARPLENS_REQUIREMENT("nvcc", nvcc_availability);
WARPLENS_REQUIREMENT("cuda-toolkit", [] {
  return locate_cuda_toolkit("").found ? met() : missing("no CUDA toolkit found (CUDA_PATH, /usr/local/cuda)");
});
WARPLENS_REQUIREMENT("occupancy-calculator", [] {
  return occupancy_calculator_available() ? met() : missing("built without CUDA's cuda_occupancy.h");
});
WARPLENS_REQUIREMENT("no-occupancy-calculator", [] {
  return occupancy_calculator_available() ? missing("this build has cuda_occupancy.h") : met();
});
WARPLENS_REQUIREMENT("clang-front-end", [] {
  return frontend_available() ? met() : missing("built without the Clang front end (-DWARPLENS_WITH_CLANG=OFF)");
});

}  // namespace warplens::test
