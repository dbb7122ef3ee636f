// Requirements of the end-to-end tests (see tests/support/requirements.h),
// asked of the binary under test and of the machine:
//   clang-front-end  `warplens --version` says it has the Clang front end
//   nvcc             $CUDA_PATH/bin/nvcc (default /usr/local/cuda) exists
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

#include "support/lsp_client.h"
#include "tests/support/requirements.h"

namespace warplens::test {

WARPLENS_REQUIREMENT("clang-front-end", [] {
  auto v = testing::run_warplens({"--version"}, testing::kWait);
  return v.out.find("front end: clang") != std::string::npos
             ? met()
             : missing("the binary has no Clang front end (-DWARPLENS_WITH_CLANG=OFF)");
});
WARPLENS_REQUIREMENT("nvcc", [] {
  const char* cuda = std::getenv("CUDA_PATH");
  std::string nvcc = std::string(cuda ? cuda : "/usr/local/cuda") + "/bin/nvcc";
  return std::filesystem::exists(nvcc) ? met() : missing("no nvcc at " + nvcc);
});

}  // namespace warplens::test
