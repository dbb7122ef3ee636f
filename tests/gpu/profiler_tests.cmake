# Profiler GPU tests: the example programs built with nvcc -lineinfo and
# profiled through the real libwarplens_inject.so.
warplens_test(profiler_gpu_tests SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/profiler_gpu_test.cpp
  DEPS warplens_profiler LABELS gpu TIMEOUT 900)
target_include_directories(profiler_gpu_tests PRIVATE ${PROJECT_SOURCE_DIR}/tests/unit/profiler)
set(_inject "")
if(TARGET warplens_inject)
  set(_inject "$<TARGET_FILE:warplens_inject>")
  add_dependencies(profiler_gpu_tests warplens_inject)
endif()
set(_nvcc "")
if(CUDAToolkit_NVCC_EXECUTABLE)
  set(_nvcc ${CUDAToolkit_NVCC_EXECUTABLE})
endif()
target_compile_definitions(profiler_gpu_tests PRIVATE
  WARPLENS_TEST_INJECT_LIB="${_inject}" WARPLENS_TEST_NVCC="${_nvcc}")
