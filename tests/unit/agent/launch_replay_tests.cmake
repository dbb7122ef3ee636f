# Issue 13: launch changes and fused sequences replayed by the capture
# verifier, end to end on the fake CUDA driver (fake_cuda/, defined in
# CMakeLists.txt above), through the optimize job's adapter. Needs nvcc
# (exit 77 without it).
if(TARGET warplens_fake_cuda)
  add_executable(launch_replay_fake_gpu_tests ${CMAKE_CURRENT_LIST_DIR}/fake_gpu_main.cpp
    ${CMAKE_CURRENT_LIST_DIR}/launch_replay_fake_gpu_test.cpp ${CMAKE_CURRENT_LIST_DIR}/launch_case_captures.cpp)
  target_link_libraries(launch_replay_fake_gpu_tests PRIVATE warplens_agent doctest::doctest)
  target_include_directories(launch_replay_fake_gpu_tests PRIVATE ${PROJECT_SOURCE_DIR})
  target_compile_definitions(launch_replay_fake_gpu_tests PRIVATE WARPLENS_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    WARPLENS_FAKE_CUDA_DIR="${WARPLENS_FAKE_CUDA_DIR}"
    WARPLENS_FAKE_SANITIZER="${CMAKE_CURRENT_LIST_DIR}/fake_cuda/fake_compute_sanitizer.sh")
  add_dependencies(launch_replay_fake_gpu_tests warplens_fake_cuda warplens-replay)
  warplens_warnings(launch_replay_fake_gpu_tests)
  add_test(NAME launch_replay_fake_gpu_tests COMMAND launch_replay_fake_gpu_tests)
  set_tests_properties(launch_replay_fake_gpu_tests PROPERTIES LABELS unit TIMEOUT 600 SKIP_RETURN_CODE 77)
endif()

# The same in the editor (warplens.optimize through the language server, the
# real backend's capture verifier on the fake GPU; three seams: GPU probe,
# capture runner, policy) and through `warplens optimize --verify-dir DIR
# --capture CAPTURE` (the split-machine path).
if(TARGET warplens_fake_cuda AND TARGET warplens_cli)
  add_executable(optimize_lsp_fake_gpu_tests ${CMAKE_CURRENT_LIST_DIR}/fake_gpu_main.cpp
    ${CMAKE_CURRENT_LIST_DIR}/launch_replay_lsp_fake_gpu.cpp ${CMAKE_CURRENT_LIST_DIR}/launch_replay_cli_fake_gpu.cpp
    ${CMAKE_CURRENT_LIST_DIR}/launch_case_captures.cpp)
  target_link_libraries(optimize_lsp_fake_gpu_tests PRIVATE warplens_cli doctest::doctest)
  target_include_directories(optimize_lsp_fake_gpu_tests PRIVATE ${PROJECT_SOURCE_DIR}
    ${PROJECT_SOURCE_DIR}/tests/unit/server)
  target_compile_definitions(optimize_lsp_fake_gpu_tests PRIVATE WARPLENS_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    WARPLENS_FAKE_CUDA_DIR="${WARPLENS_FAKE_CUDA_DIR}"
    WARPLENS_FAKE_SANITIZER="${CMAKE_CURRENT_LIST_DIR}/fake_cuda/fake_compute_sanitizer.sh")
  add_dependencies(optimize_lsp_fake_gpu_tests warplens_fake_cuda warplens-replay)
  warplens_warnings(optimize_lsp_fake_gpu_tests)
  add_test(NAME optimize_lsp_fake_gpu_tests COMMAND optimize_lsp_fake_gpu_tests)
  set_tests_properties(optimize_lsp_fake_gpu_tests PROPERTIES LABELS unit TIMEOUT 600 SKIP_RETURN_CODE 77)
endif()
