# The optimize engine's tests: candidates, search, job, reports (no Clang),
# and the rewrites (Clang; each output must compile with nvcc).
set(_here ${CMAKE_CURRENT_LIST_DIR})
file(GLOB WARPLENS_OPTIMIZE_TESTS CONFIGURE_DEPENDS
  ${_here}/search_*.cpp ${_here}/job_*.cpp ${_here}/report_*.cpp ${_here}/candidate_*.cpp)
# The optimize command is compiled in (cli/optimize.cpp, over the workflows it calls) without
# the rest of the CLI and the server.
warplens_test(agent_optimize_tests SOURCES ${WARPLENS_OPTIMIZE_TESTS} ${PROJECT_SOURCE_DIR}/cli/optimize.cpp
  DEPS warplens_workflows warplens_agent warplens_analyzer)

set(_nvcc "")
if(CUDAToolkit_NVCC_EXECUTABLE)
  set(_nvcc ${CUDAToolkit_NVCC_EXECUTABLE})
endif()
if(WARPLENS_WITH_CLANG)
  file(GLOB WARPLENS_REWRITE_TESTS CONFIGURE_DEPENDS ${_here}/rewrite_*.cpp)
  warplens_test(agent_rewrite_tests SOURCES ${WARPLENS_REWRITE_TESTS} DEPS warplens_agent TIMEOUT 900)
  target_compile_definitions(agent_rewrite_tests PRIVATE WARPLENS_NVCC="${_nvcc}")
endif()

# The rewrite snippets (rewrite_snippets/README.md): one test per snippet,
# rewrite_snippet.<name>, each against its whole expected output
# (<name>.expected; WARPLENS_UPDATE_EXPECT=1 rewrites them), and one test that
# every rewrite in the catalogue has a snippet. Without Clang the snippets
# report skipped; the coverage check runs in every build.
add_executable(rewrite_snippet_check ${_here}/snippet_check.cpp)
target_link_libraries(rewrite_snippet_check PRIVATE warplens_agent)
target_compile_definitions(rewrite_snippet_check PRIVATE WARPLENS_NVCC="${_nvcc}")
warplens_warnings(rewrite_snippet_check)
file(GLOB _snippets CONFIGURE_DEPENDS ${_here}/rewrite_snippets/*.cu)
foreach(_snippet ${_snippets})
  get_filename_component(_name ${_snippet} NAME_WE)
  add_test(NAME rewrite_snippet.${_name} COMMAND rewrite_snippet_check ${_snippet})
  set_tests_properties(rewrite_snippet.${_name} PROPERTIES LABELS unit TIMEOUT 300 SKIP_RETURN_CODE 77)
endforeach()
add_test(NAME rewrite_snippet_coverage COMMAND rewrite_snippet_check --coverage ${_here}/rewrite_snippets)
set_tests_properties(rewrite_snippet_coverage PROPERTIES LABELS unit TIMEOUT 60)

# `--policy llm` against the scripted test-double endpoint (no network).
if(WARPLENS_WITH_LLM)
  target_sources(agent_optimize_tests PRIVATE ${PROJECT_SOURCE_DIR}/tests/support/scripted_llm_endpoint.cpp)
endif()

# The examples' own correctness check (examples/optimize/harness.cuh), host
# code built with nvcc: it decides every verdict of the H200 optimize runs.
if(CUDAToolkit_NVCC_EXECUTABLE)
  add_test(NAME examples_harness_compare COMMAND sh -c
    "\"$1\" -std=c++17 -I\"$2\" -o \"$3\" \"$4\" && \"$3\""
    sh ${CUDAToolkit_NVCC_EXECUTABLE} ${PROJECT_SOURCE_DIR}/examples/optimize
    ${CMAKE_CURRENT_BINARY_DIR}/harness_compare_test ${_here}/harness_compare_test.cu)
  set_tests_properties(examples_harness_compare PROPERTIES LABELS unit TIMEOUT 300)
endif()
