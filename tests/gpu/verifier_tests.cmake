# Verifier GPU suite (label gpu; exits 77 without a GPU). Included from
# tests/gpu/CMakeLists.txt. No GPU test links the CUDA driver: everything on
# the GPU runs in warplens-replay or in the captured programs, so the test
# binary starts (and skips) on machines without a driver.
add_executable(verifier_gpu_tests
  ${CMAKE_CURRENT_SOURCE_DIR}/verifier_gpu_main.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/verifier_gpu_support.cpp
  ${PROJECT_SOURCE_DIR}/bench/synthetic_captures.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/verifier_gpu_capture_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/verifier_gpu_adversarial_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/verifier_gpu_honest_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/verifier_gpu_issue14_test.cpp)
target_link_libraries(verifier_gpu_tests PRIVATE warplens_verifier doctest::doctest)
target_include_directories(verifier_gpu_tests PRIVATE ${PROJECT_SOURCE_DIR})
target_compile_definitions(verifier_gpu_tests PRIVATE WARPLENS_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
warplens_warnings(verifier_gpu_tests)
foreach(dep warplens-replay warplens_inject)
  if(TARGET ${dep})
    add_dependencies(verifier_gpu_tests ${dep})
  endif()
endforeach()
add_test(NAME verifier_gpu_tests COMMAND verifier_gpu_tests)
set_tests_properties(verifier_gpu_tests PROPERTIES LABELS gpu TIMEOUT 900 SKIP_RETURN_CODE 77)

add_executable(warplens-verify-cli ${CMAKE_CURRENT_SOURCE_DIR}/verifier_cli_main.cpp
  ${PROJECT_SOURCE_DIR}/cli/verify.cpp)
target_link_libraries(warplens-verify-cli PRIVATE warplens_agent warplens_verifier CLI11::CLI11)
target_include_directories(warplens-verify-cli PRIVATE ${PROJECT_SOURCE_DIR})
warplens_warnings(warplens-verify-cli)
