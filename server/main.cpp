#include <cstdio>
#include <cstring>

#include "analysis/analyzer.h"

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "--version") == 0) {
    std::printf("warplens %s (front end: %s)\n", WARPLENS_VERSION,
                warplens::frontend_available() ? "clang 19" : "none");
    return 0;
  }
  std::fprintf(stderr, "warplens: not yet implemented\n");
  return 2;
}
