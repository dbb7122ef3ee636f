# The optimize engine on a GPU: `warplens-optimize` (the optimize command as
# an executable of its own, built from cli/optimize.cpp without the
# rest of the server, so the GPU machine builds little) and a smoke test that
# verifies the committed candidates of one example end to end.
add_executable(warplens-optimize ${CMAKE_CURRENT_LIST_DIR}/optimize_cli_main.cpp
  ${PROJECT_SOURCE_DIR}/cli/optimize.cpp ${PROJECT_SOURCE_DIR}/cli/compile_flag_args.cpp)
target_link_libraries(warplens-optimize PRIVATE warplens_workflows warplens_agent warplens_analyzer
  nlohmann_json::nlohmann_json spdlog::spdlog CLI11::CLI11)
target_include_directories(warplens-optimize PRIVATE ${PROJECT_SOURCE_DIR})
warplens_warnings(warplens-optimize)

add_test(NAME optimize_gpu_smoke
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/optimize_gpu_smoke.sh $<TARGET_FILE:warplens-optimize>
          ${CMAKE_CURRENT_LIST_DIR}/optimize_candidates/strided_copy)
set_tests_properties(optimize_gpu_smoke PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 600)

# The editor optimize job's capture path (workflows/kernel_capture.h) on a GPU:
# buildCommand + profileCommand captured through libwarplens_inject.so, and the
# capture replayed by agent::CaptureVerifier. tests/gpu/run_optimize_capture_h200.sh.
add_executable(optimize_capture_gpu_tests ${CMAKE_CURRENT_LIST_DIR}/optimize_capture_gpu_test.cpp)
target_link_libraries(optimize_capture_gpu_tests PRIVATE warplens_workflows doctest::doctest)
target_include_directories(optimize_capture_gpu_tests PRIVATE ${PROJECT_SOURCE_DIR})
target_compile_definitions(optimize_capture_gpu_tests PRIVATE WARPLENS_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
warplens_warnings(optimize_capture_gpu_tests)
foreach(dep warplens-replay warplens_inject)
  if(TARGET ${dep})
    add_dependencies(optimize_capture_gpu_tests ${dep})
  endif()
endforeach()
add_test(NAME optimize_capture_gpu_tests COMMAND optimize_capture_gpu_tests)
set_tests_properties(optimize_capture_gpu_tests PROPERTIES LABELS gpu TIMEOUT 900 SKIP_RETURN_CODE 77)

# stage-row-walk's rewritten tridiagonal snippet against the original on a
# GPU, its run-time fallback (an aliased solution) included. nvcc only; the
# rewritten text is the snippet's committed expected output.
add_test(NAME stage_row_walk_gpu COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/stage_row_walk_check.sh)
set_tests_properties(stage_row_walk_gpu PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 600)
