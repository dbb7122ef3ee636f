# The optimize engine's tests: candidates, search, job, reports (no Clang),
# and the rewrites (Clang; each output must compile with nvcc).
set(_here ${CMAKE_CURRENT_LIST_DIR})
file(GLOB WARPLENS_OPTIMIZE_TESTS CONFIGURE_DEPENDS
  ${_here}/search_*.cpp ${_here}/job_*.cpp ${_here}/report_*.cpp ${_here}/candidate_*.cpp)
# The optimize command is compiled in (cli/optimize.cpp and the compile flags it shares with
# check, cli/compile_flag_args.cpp, over the workflows they call) without
# the rest of the CLI and the server.
warplens_test(agent_optimize_tests SOURCES ${WARPLENS_OPTIMIZE_TESTS} ${PROJECT_SOURCE_DIR}/cli/optimize.cpp
  ${PROJECT_SOURCE_DIR}/cli/compile_flag_args.cpp
  DEPS warplens_workflows warplens_agent warplens_analyzer CLI11::CLI11)

set(_nvcc "")
if(CUDAToolkit_NVCC_EXECUTABLE)
  set(_nvcc ${CUDAToolkit_NVCC_EXECUTABLE})
endif()
if(WARPLENS_WITH_CLANG)
  file(GLOB WARPLENS_REWRITE_TESTS CONFIGURE_DEPENDS ${_here}/rewrite_*.cpp)
  # One ctest per example (each ~10-40 s: search, candidate directory, nvcc)
  # and one for the front-end case, so the suite's slowest test stays short.
  warplens_test(agent_rewrite_tests SOURCES ${WARPLENS_REWRITE_TESTS} DEPS warplens_agent warplens_analyzer TIMEOUT 600
    CASES transpose_naive strided_copy bank_conflict_tile interleaved_reduction matmul_naive_rowx
          matmul_naive_colx elementwise_chain aos_update register_heavy matvec_row_per_thread frontend)
  target_compile_definitions(agent_rewrite_tests PRIVATE
    WARPLENS_NVCC="${_nvcc}" WARPLENS_REWRITE_SNIPPETS="${_here}/rewrite_snippets"
    WARPLENS_SOURCE_DIR="${PROJECT_SOURCE_DIR}")

  # The style corpus: one test per entry of style_corpus/corpus.txt (the same
  # computations in the styles people write them; each must receive its
  # rewrites, and the candidates must compile).
  add_executable(agent_style_corpus_check ${_here}/style_corpus_check.cpp)
  target_link_libraries(agent_style_corpus_check PRIVATE warplens_agent warplens_analyzer)
  target_include_directories(agent_style_corpus_check PRIVATE ${PROJECT_SOURCE_DIR})
  target_compile_definitions(agent_style_corpus_check PRIVATE WARPLENS_NVCC="${_nvcc}")
  warplens_warnings(agent_style_corpus_check)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_here}/style_corpus/corpus.txt)
  file(STRINGS ${_here}/style_corpus/corpus.txt _corpus REGEX "^[^#].*")
  foreach(_entry IN LISTS _corpus)
    string(REGEX REPLACE "[ \t]+" ";" _fields "${_entry}")
    list(LENGTH _fields _n)
    if(_n EQUAL 4)
      list(GET _fields 0 _file)
      list(GET _fields 1 _kernel)
      list(GET _fields 2 _plan)
      list(GET _fields 3 _include)
      get_filename_component(_stem ${_file} NAME_WE)
      get_filename_component(_group ${_file} DIRECTORY)
      get_filename_component(_group ${_group} NAME)
      add_test(NAME agent_style_corpus.${_group}.${_stem}
        COMMAND agent_style_corpus_check ${PROJECT_SOURCE_DIR} ${_file} ${_kernel} ${_plan} ${_include})
      set_tests_properties(agent_style_corpus.${_group}.${_stem} PROPERTIES LABELS unit TIMEOUT 600 SKIP_RETURN_CODE 77)
    endif()
  endforeach()
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
