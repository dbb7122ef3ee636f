// Tests that need the CUDA toolkit's nvcc (no GPU): skipped (exit 77) where
// nvcc is not installed.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>

#include "agent/verifier/compile.h"

int main(int argc, char** argv) {
  if (warplens::verifier::find_nvcc("").empty()) {
    std::fprintf(stderr, "skipped: nvcc not found\n");
    return 77;
  }
  doctest::Context context(argc, argv);
  return context.run();
}
