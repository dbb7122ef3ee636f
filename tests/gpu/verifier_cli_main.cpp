// warplens-verify-cli: the `warplens verify` / `warplens capture` front ends
// in a binary of their own, for the GPU script's one-command reproduction
// (cli/main.cpp dispatches the same functions as `warplens verify`).
#include <cstdio>
#include <cstring>

#include "cli/verify.h"

int main(int argc, char** argv) {
  if (argc >= 2 && std::strcmp(argv[1], "verify") == 0) return warplens::cli::run_verify_command(argc - 1, argv + 1);
  if (argc >= 2 && std::strcmp(argv[1], "capture") == 0) return warplens::cli::run_capture_command(argc - 1, argv + 1);
  std::fprintf(stderr, "usage: warplens-verify-cli verify|capture ...\n");
  return 2;
}
