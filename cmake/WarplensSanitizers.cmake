# Sanitized builds, separate from the normal (GCC, optimised) one:
#
#   WARPLENS_SANITIZE=ON  AddressSanitizer + UndefinedBehaviorSanitizer on
#                         everything (any compiler that has them)
#   WARPLENS_FUZZ=ON      the libFuzzer targets in tests/fuzz/ (Clang only;
#                         implies WARPLENS_SANITIZE and adds coverage
#                         instrumentation to every target)
#   WARPLENS_FUZZ_SANITIZE=OFF  with WARPLENS_FUZZ: the targets without ASan
#                         and UBSan, for measuring the harness' own memory
#                         (ASan's quarantine and bookkeeping hide it;
#                         docs/fuzzing.md). Not for finding bugs.
#
# The `fuzz` preset (CMakePresets.json) configures both with clang-19 into
# build-fuzz/; scripts/fuzz.sh builds and runs them (docs/fuzzing.md).
option(WARPLENS_SANITIZE "Build with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)
option(WARPLENS_FUZZ "Build the libFuzzer targets (Clang; implies WARPLENS_SANITIZE)" OFF)
option(WARPLENS_FUZZ_SANITIZE "With WARPLENS_FUZZ: also ASan + UBSan (OFF only to measure memory)" ON)

if(WARPLENS_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "WARPLENS_FUZZ needs Clang (libFuzzer): configure with the `fuzz` preset or "
                        "-DCMAKE_CXX_COMPILER=clang++-19 -DCMAKE_C_COMPILER=clang-19")
  endif()
  if(WARPLENS_FUZZ_SANITIZE)
    set(WARPLENS_SANITIZE ON)
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()

if(WARPLENS_SANITIZE)
  # Abort on the first undefined behaviour, like a crash: a fuzzer or a
  # test then fails instead of printing and going on.
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g)
  add_link_options(-fsanitize=address,undefined)
  message(STATUS "warplens: sanitized build (ASan + UBSan)")
endif()
