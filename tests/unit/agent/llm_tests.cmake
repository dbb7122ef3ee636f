# The LLM policy's tests (agent/llm/). With WARPLENS_WITH_LLM they talk to
# the scripted endpoint test double over real HTTP(S) on 127.0.0.1; without
# it only the "unavailable" behaviour is tested.
set(_here ${CMAKE_CURRENT_LIST_DIR})
if(WARPLENS_WITH_LLM)
  file(GLOB WARPLENS_LLM_TESTS CONFIGURE_DEPENDS ${_here}/llm_*.cpp)
  list(REMOVE_ITEM WARPLENS_LLM_TESTS ${_here}/llm_unavailable_test.cpp)
  warplens_test(agent_llm_tests
    SOURCES ${WARPLENS_LLM_TESTS} ${PROJECT_SOURCE_DIR}/tests/support/scripted_llm_endpoint.cpp
    DEPS warplens_llm warplens_agent)
  target_compile_definitions(agent_llm_tests PRIVATE
    WARPLENS_LLM_FIXTURES="${PROJECT_SOURCE_DIR}/tests/fixtures/llm"
    WARPLENS_LLM_SCRATCH="${CMAKE_CURRENT_BINARY_DIR}/llm_scratch")
else()
  warplens_test(agent_llm_unavailable_test SOURCES ${_here}/llm_unavailable_test.cpp DEPS warplens_llm)
endif()
