// Runs the verifier end to end on the fake CUDA driver (a test double, see
// fake_cuda/fake_driver.cpp): warplens-replay loads the fake libcuda.so.1
// through LD_LIBRARY_PATH. Exit 77 (skipped) without nvcc.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "agent/verifier/compile.h"

int main(int argc, char** argv) {
  if (warplens::verifier::find_nvcc("").empty()) {
    std::fprintf(stderr, "skipped: nvcc not found\n");
    return 77;
  }
  std::string path = WARPLENS_FAKE_CUDA_DIR;
  if (const char* old = std::getenv("LD_LIBRARY_PATH"); old && *old) path += std::string(":") + old;
  setenv("LD_LIBRARY_PATH", path.c_str(), 1);
  unsetenv("CUDA_VISIBLE_DEVICES");
  // compute-sanitizer's stand-in (the real one cannot run on a fake GPU).
  setenv("WARPLENS_COMPUTE_SANITIZER", WARPLENS_FAKE_SANITIZER, 1);
  // This binary's own GPU lock files, not the machine's.
  setenv("WARPLENS_GPU_LOCK_DIR", std::filesystem::temp_directory_path().c_str(), 0);
  doctest::Context context(argc, argv);
  return context.run();
}
