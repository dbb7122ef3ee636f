# The language server's profile path on a real GPU (warplens.profile,
# measured diagnostics, warplens/status's gpu), through the real binary and
# the real libwarplens_inject.so. Exits 77 without a GPU.
if(TARGET warplens_lsp_test_support)
  warplens_test(wiring_gpu_tests SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/wiring_gpu_test.cpp
    DEPS warplens_lsp_test_support warplens_profiler LABELS gpu TIMEOUT 900)
  add_dependencies(wiring_gpu_tests warplens)
  if(TARGET warplens_inject)
    add_dependencies(wiring_gpu_tests warplens_inject)
  endif()
endif()
